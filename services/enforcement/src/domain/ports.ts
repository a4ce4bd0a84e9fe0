import type { Logger } from '@svc/logger';
import type { Clock, SandboxClockStore } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable, TransactionOptions } from '@svc/ports';
import type { DetectionPort } from './detection.client';
import type { Environment } from './timeline';
import type { AvatarStore } from './avatar.ports';
import type { ViolationStore, AppealStore } from './violation.ports';
import type { GracePeriodStore, TimelineStore } from './grace-period.ports';
import type { BoxStore, LicenseProjectionStore, BoxScanStore } from './box.ports';
export * from './page.ports';
export * from './avatar.ports';
export * from './violation.ports';
export * from './grace-period.ports';
export * from './box.ports';

/** Runs work in one transaction (or, with `snapshot`, reads from one snapshot). */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
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
