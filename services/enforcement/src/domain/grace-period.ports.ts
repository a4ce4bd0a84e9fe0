import type { Queryable } from '@svc/ports';
import type { GracePeriod, GracePeriodStatus } from './grace-period';
import type { PlannedStep, StepKind } from './timeline';
import type { Page } from './page.ports';

// Grace periods and the timeline of their reminders, warnings and expiry.

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
