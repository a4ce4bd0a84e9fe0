import type { Logger } from '@svc/logger';
import type { FaceForgetter } from './detection.client';
import type { FaceStatus } from '@svc/contracts/common';
import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable } from '@svc/ports';
import type { Box, LogEntryRef, Policy } from './box';
import type {
  BoxStatistics,
  BoxStatsSummary,
  FeeFact,
  LicenseFact,
  StatusFact,
  UsageFact,
  ViolationFact,
} from './box-stats';
import type { Claim, ClaimStatus, EntityType } from './claim';

export interface Page {
  limit: number;
  offset: number;
}

export interface ClaimStore {
  insert(tx: Queryable, claim: Claim): Promise<void>;
  /**
   * Which of these dashboard uploads (the ids of `/dashboard/uploads/<id>` URLs) a claim of the
   * platform names as a reference image: the gateway purges the others (docs/spec/contracts.md §17).
   */
  referencedUploads(q: Queryable, platformId: string, uploadIds: string[]): Promise<string[]>;
  /** Saves every mutable field of the claim. */
  update(tx: Queryable, claim: Claim): Promise<void>;
  /** `lock`: FOR UPDATE, so concurrent changes of one claim take turns. */
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<Claim | null>;
  /** The viewer's own claims and every platform's verified claims, newest first. */
  list(
    q: Queryable,
    filter: Page & {
      viewerPlatformId: string;
      /** `me`: only the viewer's own. */
      owner?: 'me' | undefined;
      status?: ClaimStatus | undefined;
      entityType?: EntityType | undefined;
      /** Only claims whose name or a variation contains this (compared as name keys). */
      q?: string | undefined;
    },
  ): Promise<{ items: Claim[]; total: number }>;
  /** Every tenant's claims of one status, oldest first (the operator's review queue). */
  listForReview(
    q: Queryable,
    filter: Page & { status: ClaimStatus; q?: string | undefined },
  ): Promise<{ items: Claim[]; total: number }>;
  /**
   * For each of these claims, the other accounts' pending and verified claims that share one of its
   * name keys (data-access/name-keys.ts), oldest first: the conflicts of issue #32.
   */
  conflictsOf(q: Queryable, claimIds: readonly string[]): Promise<Map<string, Claim[]>>;
  delete(tx: Queryable, id: string): Promise<void>;
  /** Records detection's face status on the claim's image with this id and url; false when there is none. */
  recordFaceStatus(
    tx: Queryable,
    image: { claimId: string; imageId: string; url: string; status: FaceStatus },
  ): Promise<boolean>;
}

export interface BoxStore {
  /** False when the claim already has a box. */
  insert(tx: Queryable, box: Box): Promise<boolean>;
  update(tx: Queryable, box: Box): Promise<void>;
  find(
    q: Queryable,
    id: string,
    options?: { lock?: boolean },
  ): Promise<(Box & { claimStatus: ClaimStatus }) | null>;
  /** Boxes of the viewer's claims and of every verified claim, newest first. */
  list(
    q: Queryable,
    filter: Page & {
      viewerPlatformId: string;
      owner?: 'me' | undefined;
      policy?: Policy | undefined;
      claimId?: string | undefined;
      /** Only boxes whose identity's name or a variation contains this. */
      q?: string | undefined;
    },
  ): Promise<{ items: Box[]; total: number }>;
  delete(tx: Queryable, id: string): Promise<void>;
  /** Where the box's newest logged decision sits; an older entry never replaces a newer one. */
  recordLogEntry(tx: Queryable, id: string, entry: LogEntryRef): Promise<void>;
}

export interface BoxStatsStore {
  summaries(q: Queryable, boxIds: string[], period: string): Promise<Map<string, BoxStatsSummary>>;
  /** The box's figures for `period` (YYYY-MM), whose instants are `bounds` (the domain's calendar). */
  statistics(
    q: Queryable,
    boxId: string,
    period: string,
    bounds: { start: Date; end: Date },
  ): Promise<BoxStatistics>;
  recordViolation(tx: Queryable, fact: ViolationFact): Promise<void>;
  recordGracePeriod(tx: Queryable, fact: StatusFact): Promise<void>;
  recordLicense(tx: Queryable, fact: LicenseFact): Promise<void>;
  recordLicenseRequest(tx: Queryable, fact: StatusFact): Promise<void>;
  recordUsage(tx: Queryable, fact: UsageFact): Promise<void>;
  /** A license's fee for a period; an older version than the recorded one changes nothing. */
  recordFee(tx: Queryable, fact: FeeFact): Promise<void>;
}

/** Runs work in one transaction. */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** Who is calling, as the gateway vouched for it. */
export interface Caller {
  platformId: string;
  environment: 'sandbox' | 'production';
  role: 'platform' | 'operator';
}

/** Everything the registry's entry points hand to its use cases (wired in start.ts). */
export interface RegistryContext {
  db: TransactionRunner;
  claims: ClaimStore;
  boxes: BoxStore;
  stats: BoxStatsStore;
  clock: Clock;
  /** Records events in the outbox, in the caller's transaction. */
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
  /** Tells the relay that committed events are waiting. */
  eventsCommitted(): void;
  /** The version of the latest event about an entity (ADR 0010), 0 when none. */
  entityVersion(q: Queryable, entityId: string): Promise<number>;
  verificationBaseUrl: string;
  newId(prefix: 'claim' | 'box' | 'img'): string;
  /** Detection, told to forget faces before a deletion or rejection is answered. */
  faces: FaceForgetter;
  logger: Pick<Logger, 'warn'>;
}
