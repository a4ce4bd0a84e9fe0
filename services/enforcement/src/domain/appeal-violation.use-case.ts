import { errors } from '@svc/errors';
import {
  decided,
  type Appeal,
  type AppealOutcome,
  type AppealReason,
  type AppealStatus,
  type AppealUnderReview,
} from './appeal';
import { events } from './enforcement-events';
import { paused, resumed } from './grace-period';
import { platformNow } from '@svc/clock';
import type { Caller, Page, UsesPorts } from './ports';
import { decideContest } from './contest-resolution.use-case';
import { closeViolation, lockCase, type ViolationCase } from './violation-lifecycle';
import { nextViolationStatus } from './violation';

/** The platform contests a pending violation: an appeal (pending), the violation appealed, the grace period paused. */
export async function appealViolation(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'clocks'
    | 'clock'
    | 'outbox'
    | 'eventsCommitted'
    | 'newId'
  >,
  caller: Caller,
  violationId: string,
  input: { reason: AppealReason; explanation: string; evidence?: string[] | undefined },
): Promise<ViolationCase & { appeal: Appeal }> {
  const result = await ctx.db.transaction(async (tx) => {
    const current = await lockCase(ctx, tx, violationId, caller.platformId);
    const now = await platformNow(ctx, tx, caller.platformId);
    const violation = { ...current.violation, status: nextViolationStatus(current.violation, 'appeal') };
    const gracePeriod = paused(current.gracePeriod, now);
    const appeal: Appeal = {
      id: ctx.newId('appeal'),
      kind: 'appeal',
      platformId: caller.platformId,
      violationId,
      gracePeriodId: gracePeriod.id,
      reason: input.reason,
      explanation: input.explanation,
      evidence: input.evidence ?? [],
      status: 'pending',
      submittedAt: now,
      decidedAt: null,
      decidedBy: null,
      notes: null,
    };
    await ctx.gracePeriods.update(tx, gracePeriod);
    await ctx.violations.update(tx, violation);
    await ctx.timeline.hold(tx, gracePeriod.id);
    await ctx.appeals.insert(tx, appeal);
    await ctx.outbox(
      tx,
      events.violationAppealed(violation, current.avatar, appeal, now),
      events.gracePeriodPaused(gracePeriod, [current.avatar.id], appeal.id, now),
    );
    return { violation, gracePeriod, avatar: current.avatar, appeal };
  });
  ctx.eventsCommitted();
  return result;
}

export interface Decision {
  outcome: AppealOutcome;
  notes?: string | undefined;
}

/**
 * The reviewer decides a pending appeal (docs/spec/contracts.md §8): upheld → the violation is dismissed and
 * its grace period resolved; denied → the violation is pending again and the grace period active,
 * with the paused time added back to the expiry and to every step still to come. A box owner's
 * contest of a resolution goes the same way (decideContest).
 */
async function decide(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'clocks'
    | 'clock'
    | 'outbox'
    | 'eventsCommitted'
  >,
  appealId: string,
  decision: Decision,
  by: 'operator' | 'test_helper',
  visibleTo?: string,
): Promise<ViolationCase & { appeal: Appeal }> {
  const result = await ctx.db.transaction(async (tx) => {
    const found = await ctx.appeals.find(tx, appealId);
    if (found === null || (visibleTo !== undefined && found.platformId !== visibleTo)) {
      throw errors.notFound('Appeal', appealId);
    }
    const current = await lockCase(ctx, tx, found.violationId);
    const locked = await ctx.appeals.find(tx, appealId, { lock: true });
    if (locked === null) throw errors.notFound('Appeal', appealId);
    // The grace period runs on the hosting platform's clock (a contest is filed by the box owner).
    const now = await platformNow(ctx, tx, current.violation.platformId);
    const appeal = decided(locked, decision.outcome, by, decision.notes ?? null, now);
    await ctx.appeals.update(tx, appeal);
    if (appeal.kind === 'contest') return { ...(await decideContest(ctx, tx, current, appeal, now)), appeal };
    if (decision.outcome === 'upheld') {
      const closed = await closeViolation(ctx, tx, current, { kind: 'uphold', appealId }, now);
      return { ...closed, appeal };
    }
    const violation = { ...current.violation, status: nextViolationStatus(current.violation, 'deny') };
    const { gracePeriod, pausedForMs } = resumed(current.gracePeriod, now);
    await ctx.gracePeriods.update(tx, gracePeriod);
    await ctx.violations.update(tx, violation);
    await ctx.timeline.release(tx, gracePeriod.id, pausedForMs);
    await ctx.outbox(
      tx,
      events.violationReopened(violation, current.avatar, appealId, now),
      events.gracePeriodResumed(gracePeriod, [current.avatar.id], appealId, now),
    );
    return { violation, gracePeriod, avatar: current.avatar, appeal };
  });
  ctx.eventsCommitted();
  return result;
}

/** The operator's queue (/admin/appeals): every platform's appeals of one status, oldest first. */
export function listAppealsForReview(
  ctx: UsesPorts<'db' | 'appeals'>,
  caller: Caller,
  query: Page & { status: AppealStatus },
): Promise<{ items: AppealUnderReview[]; total: number }> {
  if (caller.role !== 'operator') throw errors.forbidden('Only the operator API lists appeals for review');
  return ctx.appeals.listForReview(ctx.db, query);
}

/** The operator API (/admin/appeals/{id}/decide): any appeal. */
export function decideAppeal(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'clocks'
    | 'clock'
    | 'outbox'
    | 'eventsCommitted'
  >,
  caller: Caller,
  appealId: string,
  decision: Decision,
): Promise<ViolationCase & { appeal: Appeal }> {
  if (caller.role !== 'operator') throw errors.forbidden('Only the operator API decides appeals');
  return decide(ctx, appealId, decision, 'operator');
}

/** Sandbox test helper: a platform decides one of its own appeals at once. */
export function decideOwnAppealForTesting(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'clocks'
    | 'clock'
    | 'outbox'
    | 'eventsCommitted'
  >,
  caller: Caller,
  appealId: string,
  decision: Decision,
): Promise<ViolationCase & { appeal: Appeal }> {
  if (caller.environment !== 'sandbox')
    throw errors.forbidden('Test helpers are available to sandbox keys only');
  return decide(ctx, appealId, decision, 'test_helper', caller.platformId);
}

/** One of the caller's appeals. */
export async function getAppeal(
  ctx: UsesPorts<'db' | 'appeals'>,
  caller: Caller,
  appealId: string,
): Promise<Appeal> {
  const appeal = await ctx.appeals.find(ctx.db, appealId);
  if (appeal === null || appeal.platformId !== caller.platformId) throw errors.notFound('Appeal', appealId);
  return appeal;
}
