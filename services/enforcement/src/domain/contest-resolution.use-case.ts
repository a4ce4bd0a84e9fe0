import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { Appeal } from './appeal';
import type { Avatar } from './avatar';
import { events } from './enforcement-events';
import { reopened } from './grace-period';
import { platformNow } from '@svc/clock';
import type { Caller, UsesPorts } from './ports';
import { lockCase, type ViolationCase } from './violation-lifecycle';
import { nextViolationStatus, type Violation } from './violation';

const CONTESTABLE = ['licensed', 'removed', 'modified', 'parody'];

/**
 * The box owner contests how a violation of its box was resolved (issue 14): within the grace
 * period the violation had (counted on the hosting platform's clock), one pending contest at a
 * time. It goes to the same review as appeals (`/admin/appeals/{id}/decide`); the violation stays
 * resolved until the reviewer upholds it.
 */
export async function contestResolution(
  ctx: UsesPorts<'db' | 'avatars' | 'violations' | 'gracePeriods' | 'appeals' | 'clocks' | 'clock' | 'newId'>,
  caller: Caller,
  violationId: string,
  input: { explanation: string; evidence?: string[] | undefined },
): Promise<ViolationCase & { contest: Appeal }> {
  return ctx.db.transaction(async (tx) => {
    const found = await ctx.violations.find(tx, violationId);
    if (found === null || found.boxOwnerPlatformId !== caller.platformId) {
      throw errors.notFound('Violation', violationId);
    }
    const current = await lockCase(ctx, tx, violationId);
    const { violation, gracePeriod } = current;
    if (violation.status !== 'resolved' || !CONTESTABLE.includes(violation.resolution ?? '')) {
      throw errors.invalidState(
        `Violation ${violationId} is ${violation.status}: only a resolution (licensed, removed, modified, parody) can be contested`,
        { status: violation.status, resolution: violation.resolution },
      );
    }
    const now = await platformNow(ctx, tx, violation.platformId);
    if (now.getTime() >= gracePeriod.expiresAt.getTime()) {
      throw errors.invalidState(
        `The grace period of violation ${violationId} ended at ${gracePeriod.expiresAt.toISOString()}: its resolution can no longer be contested; if the avatar is back, it is detected again when reported`,
        { contestableUntil: gracePeriod.expiresAt.toISOString() },
      );
    }
    const latest = (await ctx.appeals.latestFor(tx, [violationId], 'contest')).get(violationId);
    if (latest?.status === 'pending') {
      throw errors.invalidState(`Contest ${latest.id} of violation ${violationId} is already under review`, {
        contestId: latest.id,
      });
    }
    const contest: Appeal = {
      id: ctx.newId('appeal'),
      kind: 'contest',
      platformId: caller.platformId,
      violationId,
      gracePeriodId: gracePeriod.id,
      reason: 'other',
      explanation: input.explanation,
      evidence: input.evidence ?? [],
      status: 'pending',
      submittedAt: now,
      decidedAt: null,
      decidedBy: null,
      notes: null,
    };
    await ctx.appeals.insert(tx, contest);
    return { ...current, contest };
  });
}

/**
 * The reviewer's decision on a contest (called inside decide's transaction, the case locked).
 * Denied: the resolution stands. Upheld: the violation is pending again and its grace period
 * active with the time it had left when resolved; a removed avatar is reported again (the owner
 * showed it is still there); the platform hears `grace_period.resumed`.
 */
export async function decideContest(
  ctx: UsesPorts<'avatars' | 'violations' | 'gracePeriods' | 'timeline' | 'outbox'>,
  tx: Queryable,
  current: ViolationCase,
  contest: Appeal,
  now: Date,
): Promise<ViolationCase> {
  if (contest.status !== 'upheld') return current;
  const open = await ctx.violations.openForAvatar(tx, current.avatar.ref);
  if (open.some((v) => v.boxId === current.violation.boxId)) {
    throw errors.invalidState(
      `A newer violation of the same avatar on box ${current.violation.boxId} is open: the contest is moot; deny it`,
      { openViolationIds: open.map((v) => v.id) },
    );
  }
  const violation: Violation = {
    ...current.violation,
    status: nextViolationStatus(current.violation, 'reopen'),
    resolution: null,
    resolutionNotes: null,
    licenseId: null,
    resolvedAt: null,
    resolvedBy: null,
    resolutionEvidence: null,
  };
  const { gracePeriod, shiftMs } = reopened(current.gracePeriod, now);
  let avatar: Avatar = current.avatar;
  if (avatar.deletedAt !== null) {
    avatar = { ...avatar, deletedAt: null, updatedAt: now };
    await ctx.avatars.update(tx, avatar);
  }
  await ctx.gracePeriods.update(tx, gracePeriod);
  await ctx.violations.update(tx, violation);
  await ctx.timeline.reschedule(tx, gracePeriod.id, shiftMs);
  await ctx.outbox(
    tx,
    events.violationReopened(violation, avatar, contest.id, now),
    events.gracePeriodResumed(gracePeriod, [avatar.id], contest.id, now),
  );
  return { violation, gracePeriod, avatar };
}
