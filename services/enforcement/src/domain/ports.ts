import type { Logger } from '@svc/logger';
import type { Clock, SandboxClockStore } from '@svc/clock';
import type { EventEnvelope, Policy } from '@svc/contracts/common';
import type { IndexKnowledge } from '@svc/contracts/detection';
import type { Queryable } from '@svc/ports';
import type { Appeal, AppealKind, AppealStatus, AppealUnderReview } from './appeal';
import type { LogEntryRef } from './log-entry';
import type { Avatar, EvaluationStatus } from './avatar';
import type { DetectionPort } from './detection.client';
import type { GracePeriod, GracePeriodStatus } from './grace-period';
import type { LicenseRecord } from './resolution-check';
import type { Severity } from './severity';
import type { EnforcementLevel, Environment, PlannedStep, StepKind } from './timeline';
import type { Violation, ViolationStatus } from './violation';

export interface Page {
  limit: number;
  offset: number;
}

/** Runs work in one transaction. */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** Who is calling, as the gateway vouched for it. */
export interface Caller {
  platformId: string;
  environment: Environment;
  platformDomain: string | null;
  /** The platform's name, when the gateway's token carries it. */
  platformName?: string | null;
  role: 'platform' | 'operator';
}

export interface AvatarStore {
  insert(tx: Queryable, avatar: Avatar): Promise<void>;
  update(tx: Queryable, avatar: Avatar): Promise<void>;
  /** The platform's avatar by its own id, deleted ones too. */
  find(
    q: Queryable,
    platformId: string,
    avatarId: string,
    options?: { lock?: boolean },
  ): Promise<Avatar | null>;
  findByRef(q: Queryable, ref: string, options?: { lock?: boolean }): Promise<Avatar | null>;
  findManyByRef(q: Queryable, refs: string[]): Promise<Map<string, Avatar>>;
  list(
    q: Queryable,
    filter: Page & {
      platformId: string;
      evaluation?: EvaluationStatus | undefined;
      creatorId?: string | undefined;
    },
  ): Promise<{ items: Avatar[]; total: number }>;
  /** Pending evaluations that are due, leased until `leaseUntil` (skipping ones another replica holds). */
  leaseDueEvaluations(tx: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<Avatar[]>;
  /**
   * The platform's reported avatars whose last evaluation matched `boxId` become pending again, due
   * at `dueAt` (the evaluation worker asks detection about them); returns how many.
   */
  reevaluateMatching(tx: Queryable, platformId: string, boxId: string, dueAt: Date): Promise<number>;
  /**
   * Records that an answer about the avatar is being applied, and says whether it is fresh: false
   * (nothing recorded) when an applied answer knew more (a further position of the same
   * projection), or, when that cannot be told, was asked later.
   */
  recordAnswer(tx: Queryable, ref: string, asked: AskedAt): Promise<boolean>;
  /**
   * Reported avatars of every platform after `afterSeq`, in seq order; with `only`, those that can
   * match the box (their match keys meet its identity's, they carry a picture, or their keys were
   * made by other rules than `only.version`). `passed`: the avatars the page covers, those left out
   * by `only` included (up to its last avatar, or every one after `afterSeq` when it is empty).
   */
  scanPage(q: Queryable, afterSeq: number, limit: number, only?: ScanFilter): Promise<ScanPage>;
  /** Gives up to `limit` avatars whose match keys were made by older rules (or none) today's; returns how many. */
  fillMatchKeys(q: Queryable, limit: number): Promise<number>;
}

/** When a question was asked of detection, and how far its answer's index had read (when told). */
export interface AskedAt {
  at: Date;
  knowledge?: IndexKnowledge | undefined;
}

export interface ScanPage {
  avatars: { avatar: Avatar; seq: number }[];
  passed: number;
}

/** What a box's identity is matched by (detection's answer before a scan, issue #34). */
export interface ScanFilter {
  version: number;
  keys: number[];
}

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

export interface GracePeriodFilter extends Page {
  platformId: string;
  status?: GracePeriodStatus | undefined;
  boxId?: string | undefined;
  /** Expiring between these instants (expiringWithin). */
  expiringAfter?: Date | undefined;
  expiringBy?: Date | undefined;
}

export interface GracePeriodStore {
  insert(tx: Queryable, gp: GracePeriod): Promise<void>;
  update(tx: Queryable, gp: GracePeriod): Promise<void>;
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<GracePeriod | null>;
  findMany(q: Queryable, ids: string[]): Promise<Map<string, GracePeriod>>;
  list(q: Queryable, filter: GracePeriodFilter): Promise<{ items: GracePeriod[]; total: number }>;
  /** Bulk: these grace periods ended (their status and endedAt). */
  markEnded(tx: Queryable, gracePeriods: GracePeriod[]): Promise<void>;
  /** Active or paused, newest first. */
  open(q: Queryable, platformId: string, limit: number): Promise<GracePeriod[]>;
}

export type StepStatus = 'scheduled' | 'held' | 'fired' | 'cancelled';

export interface TimelineStep {
  id: string;
  gracePeriodId: string;
  platformId: string;
  kind: StepKind;
  position: number;
  dueAt: Date;
  status: StepStatus;
  firedAt: Date | null;
  recipients: string[] | null;
}

/** A due step with its grace period, both locked, and how far the platform's clock runs ahead. */
export interface DueStep {
  step: TimelineStep;
  gracePeriod: GracePeriod;
  offsetMs: number;
}

export interface FiredStep {
  id: string;
  firedAt: Date;
  recipients: string[] | null;
}

export interface TimelineStore {
  plan(tx: Queryable, gp: GracePeriod, steps: PlannedStep[]): Promise<void>;
  forGracePeriods(q: Queryable, ids: string[]): Promise<Map<string, TimelineStep[]>>;
  /** Pause: scheduled steps are held. */
  hold(tx: Queryable, gracePeriodId: string): Promise<void>;
  /** A resolution was set aside: the steps its end cancelled (never fired) are scheduled again, `shiftMs` later. */
  reschedule(tx: Queryable, gracePeriodId: string, shiftMs: number): Promise<void>;
  /** Resume: held steps are scheduled again, `shiftMs` later. */
  release(tx: Queryable, gracePeriodId: string, shiftMs: number): Promise<void>;
  /** The grace period ended: steps still to come never fire. */
  cancelRemaining(tx: Queryable, gracePeriodIds: string[]): Promise<void>;
  /** The ids of each grace period's scheduled steps, in firing order. */
  scheduledInOrder(tx: Queryable, gracePeriodIds: string[]): Promise<Map<string, string[]>>;
  /**
   * Locks due steps (and their grace periods) in firing order: every platform's steps due by
   * `now` (real time), or one platform's due by its own clock. `wait`: wait for rows another
   * transaction holds instead of skipping them (advance-time must see every due step fire).
   */
  lockDue(
    tx: Queryable,
    options: { now: Date; limit: number; platform?: { id: string; offsetMs: number }; wait?: boolean },
  ): Promise<DueStep[]>;
  markFired(tx: Queryable, fired: FiredStep[]): Promise<void>;
  cancelSteps(tx: Queryable, stepIds: string[]): Promise<void>;
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

export interface BoxView {
  boxId: string;
  claimId: string;
  ownerPlatformId: string;
  identityName: string;
  policy: Policy;
  enforcement: EnforcementLevel;
  policyConfig: Record<string, unknown>;
  updatedAt: Date;
  /** The box's entity version (ADR 0010); 0 for an unversioned event. */
  version: number;
  deletedAt: Date | null;
}

export interface BoxStore {
  /** Inserts or replaces the box unless the stored one is newer or the box was deleted. */
  upsert(tx: Queryable, box: BoxView): Promise<void>;
  markDeleted(
    tx: Queryable,
    box: Omit<BoxView, 'policy' | 'enforcement' | 'policyConfig' | 'updatedAt' | 'version' | 'deletedAt'>,
    deletedAt: Date,
  ): Promise<void>;
  find(q: Queryable, boxId: string): Promise<BoxView | null>;
  findMany(q: Queryable, boxIds: string[]): Promise<Map<string, BoxView>>;
}

export interface LicenseFact {
  licenseId: string;
  boxId: string;
  licenseePlatformId: string;
  status: string;
  tier: string;
  updatedAt: Date;
  /** The license's entity version (ADR 0010); 0 for an unversioned event. */
  version: number;
}

export interface LicenseProjectionStore {
  /** Applies the fact unless a newer one is stored; true when applied. */
  apply(tx: Queryable, fact: LicenseFact): Promise<boolean>;
  /** The tiers of the platform's active licenses on the box (none: an empty list). */
  activeTiers(q: Queryable, platformId: string, boxId: string): Promise<string[]>;
  /** One license; `lock` holds its row until the transaction ends (a lapse waits for a resolution resting on it). */
  find(q: Queryable, licenseId: string, options?: { lock?: boolean }): Promise<LicenseRecord | null>;
}

export interface BoxScan {
  boxId: string;
  status: 'in_progress' | 'completed';
  cursorSeq: number;
  avatarsScanned: number;
  violationsCreated: number;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  startedAt: Date;
  completedAt: Date | null;
  /** While a worker holds the scan. */
  leaseUntil: Date | null;
}

export interface BoxScanStore {
  /** Records a new scan; false when the box was already scanned or is being scanned. */
  start(tx: Queryable, boxId: string, now: Date): Promise<boolean>;
  /**
   * Scans the box again from its first avatar: its matchable surface changed. A scan running now
   * is superseded (its worker's next update writes nothing); `startedAt` always moves forward.
   */
  restart(tx: Queryable, boxId: string, now: Date): Promise<void>;
  /** One scan that is due, leased until `leaseUntil`. */
  leaseDue(tx: Queryable, now: Date, leaseUntil: Date): Promise<BoxScan | null>;
  find(q: Queryable, boxId: string, options?: { lock?: boolean }): Promise<BoxScan | null>;
  /**
   * Writes the scan's progress; false (nothing written) when it was restarted since it was read,
   * or, given the lease the worker holds (`heldUntil`), when the row's lease is no longer that one:
   * it ran out under a stalled worker and another one took the scan over (issue #34).
   */
  update(tx: Queryable, scan: BoxScan, heldUntil?: Date): Promise<boolean>;
}

/** Everything enforcement's entry points hand to its use cases (wired in start.ts). */
export interface EnforcementContext {
  db: TransactionRunner;
  avatars: AvatarStore;
  violations: ViolationStore;
  gracePeriods: GracePeriodStore;
  timeline: TimelineStore;
  appeals: AppealStore;
  boxes: BoxStore;
  licenses: LicenseProjectionStore;
  clocks: SandboxClockStore;
  scans: BoxScanStore;
  detection: DetectionPort;
  /** Real time; a platform's time adds its sandbox offset (platform-clock.ts). */
  clock: Clock;
  /** The deployment's environment: the grace period's length. */
  environment: Environment;
  /** Records events in the outbox, in the caller's transaction. */
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
  /** Tells the relay that committed events are waiting. */
  eventsCommitted(): void;
  /** Tells the evaluation and scan workers that there is work (after a commit). */
  workWaiting(): void;
  newId(prefix: 'viol' | 'gp' | 'appeal' | 'av'): string;
  /** For what a use case survives but an operator should see (work left to a background job). */
  logger: Logger;
}

/**
 * The part of the context a use case uses, named in its signature (issue #33): a function that
 * writes an appeal says so, and one that only reads avatars cannot reach the outbox. Entry points
 * still hand the whole EnforcementContext, which has every member.
 */
export type UsesPorts<K extends keyof EnforcementContext> = Pick<EnforcementContext, K>;
