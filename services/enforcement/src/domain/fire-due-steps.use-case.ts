import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable } from '@svc/ports';
import { recipientsOf, type Avatar } from './avatar';
import { events } from './enforcement-events';
import { ended, type GracePeriod } from './grace-period';
import type { DueStep, FiredStep, UsesPorts } from './ports';
import { REMINDER_DAY } from './timeline';
import { nextViolationStatus, type Violation } from './violation';

/** Steps locked and fired in one transaction: the state changes and their events commit together. */
export const STEP_BATCH = 500;

export interface SchedulerRun {
  fired: number;
  reminders: number;
  endings: number;
  expired: number;
}

function emptyRun(): SchedulerRun {
  return { fired: 0, reminders: 0, endings: 0, expired: 0 };
}

export function add(run: SchedulerRun, more: SchedulerRun): void {
  run.fired += more.fired;
  run.reminders += more.reminders;
  run.endings += more.endings;
  run.expired += more.expired;
}

/**
 * Fires one batch of locked due steps, in order: a reminder records its notification and sends
 * grace_period.reminder; the ending warning sends grace_period.ending; the expiry expires the grace
 * period and enforces the violation (grace_period.expired, violation.enforced). Bulk writes.
 */
async function fireBatch(
  ctx: UsesPorts<'violations' | 'gracePeriods' | 'timeline' | 'outbox'>,
  tx: Queryable,
  due: DueStep[],
  realNow: Date,
): Promise<SchedulerRun> {
  const run = emptyRun();
  if (due.length === 0) return run;
  const cases = await ctx.violations.casesOf(tx, [...new Set(due.map((d) => d.gracePeriod.violationId))]);
  // A grace period's steps fire in order. A replica may have locked a later step of a grace period
  // while an earlier one was held by another replica at scan time: such a step waits (stays
  // scheduled) for the next batch, so an expiry never overtakes (and cancels) a reminder.
  const order = await ctx.timeline.scheduledInOrder(tx, [...new Set(due.map((d) => d.gracePeriod.id))]);
  const nextOf = new Map<string, number>();
  const periods = new Map<string, GracePeriod>();
  const expiredPeriods: GracePeriod[] = [];
  const enforced: Violation[] = [];
  const fired: FiredStep[] = [];
  const cancelled: string[] = [];
  const envelopes: EventEnvelope[] = [];
  for (const { step, gracePeriod: locked, offsetMs } of due) {
    const position = nextOf.get(locked.id) ?? 0;
    if (order.get(locked.id)?.[position] !== step.id) continue;
    nextOf.set(locked.id, position + 1);
    const gracePeriod = periods.get(locked.id) ?? locked;
    const found = cases.get(gracePeriod.violationId);
    // A step of a grace period that is no longer counting down (never expected: pausing holds the steps).
    if (gracePeriod.status !== 'active' || found === undefined) {
      cancelled.push(step.id);
      continue;
    }
    const at = new Date(realNow.getTime() + offsetMs);
    const avatar: Avatar = found.avatar;
    const avatarIds = [avatar.id];
    const reminderDay = REMINDER_DAY[step.kind];
    if (reminderDay !== undefined) {
      fired.push({ id: step.id, firedAt: at, recipients: recipientsOf(avatar) });
      envelopes.push(events.gracePeriodReminder(gracePeriod, avatarIds, reminderDay, step.dueAt, at));
      run.reminders += 1;
    } else if (step.kind === 'ending') {
      fired.push({ id: step.id, firedAt: at, recipients: null });
      envelopes.push(events.gracePeriodEnding(gracePeriod, avatarIds, step.dueAt, at));
      run.endings += 1;
    } else {
      const expired = ended(gracePeriod, 'expire', at);
      const violation: Violation = {
        ...found.violation,
        status: nextViolationStatus(found.violation, 'enforce'),
        enforcedAt: at,
      };
      periods.set(expired.id, expired);
      expiredPeriods.push(expired);
      enforced.push(violation);
      fired.push({ id: step.id, firedAt: at, recipients: null });
      envelopes.push(
        events.gracePeriodExpired(expired, avatarIds, at),
        events.violationEnforced(violation, avatar, at),
      );
      run.expired += 1;
    }
    run.fired += 1;
  }
  await ctx.timeline.markFired(tx, fired);
  if (cancelled.length > 0) await ctx.timeline.cancelSteps(tx, cancelled);
  await ctx.gracePeriods.markEnded(tx, expiredPeriods);
  await ctx.violations.markEnforced(tx, enforced);
  await ctx.timeline.cancelRemaining(
    tx,
    expiredPeriods.map((gp) => gp.id),
  );
  await ctx.outbox(tx, ...envelopes);
  return run;
}

/** Retries a batch that lost a deadlock (a waiting advance-time against an appeal on the same period). */
async function inTransaction<T>(ctx: UsesPorts<'db'>, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await ctx.db.transaction(fn);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 5 || (code !== '40P01' && code !== '40001')) throw err;
    }
  }
}

/**
 * The scheduler's pass (ADR 0008): every step due by real time, then every step due by a sandbox
 * clock that runs ahead, batch after batch until none is left. Replicas share the work: due rows
 * are claimed with FOR UPDATE SKIP LOCKED, so a step fires exactly once.
 */
export async function fireDueSteps(
  ctx: UsesPorts<
    'db' | 'violations' | 'gracePeriods' | 'timeline' | 'clocks' | 'clock' | 'outbox' | 'eventsCommitted'
  >,
): Promise<SchedulerRun> {
  const run = emptyRun();
  const drain = async (platform?: { id: string; offsetMs: number }) => {
    for (;;) {
      const now = ctx.clock.now();
      const batch = await inTransaction(ctx, async (tx) => {
        const due = await ctx.timeline.lockDue(tx, {
          now,
          limit: STEP_BATCH,
          ...(platform === undefined ? {} : { platform }),
        });
        return { locked: due.length, run: await fireBatch(ctx, tx, due, now) };
      });
      add(run, batch.run);
      if (batch.locked > 0) ctx.eventsCommitted();
      // A short batch is not the end: another replica may have held some due rows (or their grace
      // periods) when this one looked. Only an empty batch means nothing is left for this pass.
      if (batch.locked === 0) return;
    }
  };
  await drain();
  for (const platform of await ctx.clocks.ahead(ctx.db)) {
    await drain({ id: platform.platformId, offsetMs: platform.offsetMs });
  }
  return run;
}

/**
 * One batch of one platform's due steps, locked and fired in the caller's transaction. The
 * sandbox clock's move (advanceSandboxClock) fires its first batch in the transaction that moves
 * the clock: until it commits, no scheduler sees the new time, so the steps the move makes due
 * fire there, and the answer counts them (a scheduler's pass could otherwise fire them between the
 * move and the helper's own pass, and the helper would answer stepsFired 0).
 */
export async function firePlatformBatch(
  ctx: UsesPorts<'violations' | 'gracePeriods' | 'timeline' | 'clock' | 'outbox'>,
  tx: Queryable,
  platform: { id: string; offsetMs: number },
): Promise<{ locked: number; run: SchedulerRun }> {
  const now = ctx.clock.now();
  const due = await ctx.timeline.lockDue(tx, { now, limit: STEP_BATCH, platform, wait: true });
  return { locked: due.length, run: await fireBatch(ctx, tx, due, now) };
}

/**
 * Every step of one platform due by its clock at `platformNow`, in order, waiting for rows another
 * scheduler holds instead of skipping them: when this returns, every due step of the platform has fired.
 */
export async function firePlatformSteps(
  ctx: UsesPorts<'db' | 'violations' | 'gracePeriods' | 'timeline' | 'clock' | 'outbox' | 'eventsCommitted'>,
  platformId: string,
  offsetMs: number,
): Promise<SchedulerRun> {
  const run = emptyRun();
  for (;;) {
    const batch = await inTransaction(ctx, (tx) => firePlatformBatch(ctx, tx, { id: platformId, offsetMs }));
    add(run, batch.run);
    if (batch.locked > 0) ctx.eventsCommitted();
    // Rows another scheduler fired while this one waited drop out of a batch, so a short batch
    // does not mean the end: only an empty one does.
    if (batch.locked === 0) return run;
  }
}
