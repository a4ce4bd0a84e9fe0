import type { Queryable } from '@svc/ports';
import type { Appeal, AppealKind, AppealStatus, AppealUnderReview } from './appeal';
import type { LogEntryRef } from './log-entry';
import type { Avatar } from './avatar';
import type { Severity } from './severity';
import type { Violation, ViolationStatus } from './violation';
import type { Page } from './page.ports';

// Violations and the appeals and contests filed against them.

export interface ViolationFilter extends Page {
  platformId: string;
  status?: ViolationStatus | undefined;
  boxId?: string | undefined;
  severity?: Severity | undefined;
}

export interface ViolationStore {
  insert(tx: Queryable, violation: Violation): Promise<void>;
  update(tx: Queryable, violation: Violation): Promise<void>;
  /** Where its newest logged decision sits (docs/spec/contracts.md §16); an older entry never replaces a newer one. */
  recordLogEntry(tx: Queryable, id: string, entry: LogEntryRef): Promise<void>;
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<Violation | null>;
  findMany(q: Queryable, ids: string[]): Promise<Map<string, Violation>>;
  /** Open (pending or appealed) violations of an avatar. */
  openForAvatar(q: Queryable, avatarRef: string): Promise<Violation[]>;
  openIdsForAvatars(q: Queryable, avatarRefs: string[]): Promise<Map<string, string[]>>;
  /** Ids of the open violations of one platform on one box (a license resolves them). */
  openIdsOnBox(q: Queryable, boxId: string, platformId?: string): Promise<string[]>;
  list(q: Queryable, filter: ViolationFilter): Promise<{ items: Violation[]; total: number }>;
  /** Every platform's violations on one box (the box owner's view), newest first. */
  listOnBox(
    q: Queryable,
    filter: Page & { boxId: string; status?: ViolationStatus | undefined },
  ): Promise<{ items: Violation[]; total: number }>;
  /** Violations with their avatars, by violation id (the scheduler's batch). */
  casesOf(
    q: Queryable,
    violationIds: string[],
  ): Promise<Map<string, { violation: Violation; avatar: Avatar }>>;
  /** Bulk: these violations are now enforced. */
  markEnforced(tx: Queryable, violations: Violation[]): Promise<void>;
  /** Enforced violations whose avatar is still reported (takedowns), newest first. */
  takedowns(
    q: Queryable,
    platformId: string,
    limit: number,
  ): Promise<{ violation: Violation; avatar: Avatar }[]>;
}

export interface AppealStore {
  insert(tx: Queryable, appeal: Appeal): Promise<void>;
  update(tx: Queryable, appeal: Appeal): Promise<void>;
  /** Where its decision sits in the transparency log; an older entry never replaces a newer one. */
  recordLogEntry(tx: Queryable, id: string, entry: LogEntryRef): Promise<void>;
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<Appeal | null>;
  /** The latest appeal (or, with `kind` contest, the box owner's latest contest) of each violation. */
  latestFor(q: Queryable, violationIds: string[], kind?: AppealKind): Promise<Map<string, Appeal>>;
  /** Pending appeals of a violation are withdrawn (it was resolved meanwhile); contests are not. */
  withdrawPending(tx: Queryable, violationId: string, at: Date): Promise<void>;
  /** Every appeal and contest of one status with its violation, oldest first (the operator's queue). */
  listForReview(
    q: Queryable,
    filter: Page & { status: AppealStatus },
  ): Promise<{ items: AppealUnderReview[]; total: number }>;
}
