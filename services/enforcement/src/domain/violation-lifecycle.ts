import type { AvatarMatch } from '@svc/contracts/detection';
import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import { recipientsOf, type Avatar } from './avatar';
import { events } from './enforcement-events';
import { ended, type GracePeriod } from './grace-period';
import type { UsesPorts } from './ports';
import { severityOf } from './severity';
import { snapshotOf, type ResolutionEvidence, type ResolvedBy } from './resolution-check';
import { gracePeriodLength, planTimeline } from './timeline';
import { nextViolationStatus, type Resolution, type Violation } from './violation';

// The two moments every flow shares: a violation (with its grace period and timeline) opens, and
// an open one closes. Both run inside the caller's transaction and record their events there.

/** A violation with its grace period and avatar, the grace period locked before the violation. */
export interface ViolationCase {
  violation: Violation;
  gracePeriod: GracePeriod;
  avatar: Avatar;
}

/**
 * Loads and locks a violation's case in the one lock order every flow uses (avatar, then grace
 * period, then violation), so that two flows never wait on each other in a circle.
 */
export async function lockCase(
  ctx: UsesPorts<'avatars' | 'violations' | 'gracePeriods'>,
  tx: Queryable,
  violationId: string,
  visibleTo?: string,
): Promise<ViolationCase> {
  const first = await ctx.violations.find(tx, violationId);
  if (first === null || (visibleTo !== undefined && first.platformId !== visibleTo)) {
    throw errors.notFound('Violation', violationId);
  }
  const gracePeriod = await ctx.gracePeriods.find(tx, first.gracePeriodId, { lock: true });
  const violation = await ctx.violations.find(tx, violationId, { lock: true });
  const avatar = await ctx.avatars.findByRef(tx, first.avatarRef);
  if (gracePeriod === null || violation === null || avatar === null)
    throw errors.notFound('Violation', violationId);
  return { violation, gracePeriod, avatar };
}

/** A policy breach: a pending violation, its active grace period and timeline, the day-0 notification and events. */
export async function openViolation(
  ctx: UsesPorts<'violations' | 'gracePeriods' | 'timeline' | 'environment' | 'outbox' | 'newId'>,
  tx: Queryable,
  avatar: Avatar,
  match: AvatarMatch,
  now: Date,
): Promise<ViolationCase> {
  const violationId = ctx.newId('viol');
  const gracePeriodId = ctx.newId('gp');
  const violation: Violation = {
    id: violationId,
    platformId: avatar.platformId,
    avatarRef: avatar.ref,
    boxId: match.boxId,
    claimId: match.claimId,
    identityName: match.identityName,
    boxOwnerPlatformId: match.ownerPlatformId,
    policy: match.policy,
    enforcement: match.enforcement,
    policyConfig: match.policyConfig,
    status: 'pending',
    severity: severityOf(avatar.userCount, match.confidence),
    detection: {
      confidence: match.confidence,
      layer: match.layer,
      classification: match.classification,
      matchedVariations: match.matchedVariations,
      imageMatchScore: match.imageMatchScore,
      parodyLikelihood: match.parodyLikelihood,
    },
    detectedAt: now,
    gracePeriodId,
    resolution: null,
    resolutionNotes: null,
    licenseId: null,
    resolvedAt: null,
    resolvedBy: null,
    resolutionEvidence: null,
    detectedAvatar: snapshotOf(avatar),
    enforcedAt: null,
  };
  const gracePeriod: GracePeriod = {
    id: gracePeriodId,
    platformId: avatar.platformId,
    violationId,
    boxId: match.boxId,
    claimId: match.claimId,
    identityName: match.identityName,
    boxOwnerPlatformId: match.ownerPlatformId,
    policy: match.policy,
    environment: ctx.environment,
    enforcement: match.enforcement,
    status: 'active',
    startedAt: now,
    expiresAt: new Date(now.getTime() + gracePeriodLength(ctx.environment, match.enforcement)),
    pausedAt: null,
    pausedMs: 0,
    resolution: null,
    resolvedAt: null,
    endedAt: null,
    day0Recipients: recipientsOf(avatar),
  };
  await ctx.gracePeriods.insert(tx, gracePeriod);
  await ctx.violations.insert(tx, violation);
  await ctx.timeline.plan(tx, gracePeriod, planTimeline(ctx.environment, match.enforcement, now));
  await ctx.outbox(
    tx,
    events.violationCreated(violation, avatar, now),
    events.gracePeriodStarted(gracePeriod, [avatar.id], now),
  );
  return { violation, gracePeriod, avatar };
}

export type Closing =
  | {
      kind: 'resolve';
      resolution: Resolution;
      resolvedBy: ResolvedBy;
      evidence: ResolutionEvidence;
      licenseId?: string | null;
      notes?: string | null;
    }
  | { kind: 'uphold'; appealId: string }
  | { kind: 'cancel' };

/**
 * Closes an open violation and its grace period: resolved (the platform complied), dismissed by
 * an upheld appeal, or cancelled with its box. The timeline's remaining steps never fire.
 */
export async function closeViolation(
  ctx: UsesPorts<'violations' | 'gracePeriods' | 'timeline' | 'appeals' | 'outbox'>,
  tx: Queryable,
  current: ViolationCase,
  closing: Closing,
  now: Date,
): Promise<ViolationCase> {
  const { avatar } = current;
  let violation: Violation;
  let gracePeriod: GracePeriod;
  if (closing.kind === 'resolve') {
    violation = {
      ...current.violation,
      status: nextViolationStatus(current.violation, 'resolve'),
      resolution: closing.resolution,
      resolutionNotes: closing.notes ?? null,
      licenseId: closing.licenseId ?? null,
      resolvedAt: now,
      resolvedBy: closing.resolvedBy,
      resolutionEvidence: closing.evidence,
    };
    gracePeriod = ended(current.gracePeriod, 'resolve', now, closing.resolution);
  } else if (closing.kind === 'uphold') {
    violation = {
      ...current.violation,
      status: nextViolationStatus(current.violation, 'uphold'),
      resolution: 'dismissed',
      resolvedAt: now,
    };
    gracePeriod = ended(current.gracePeriod, 'resolve', now, 'dismissed');
  } else {
    violation = {
      ...current.violation,
      status: nextViolationStatus(current.violation, 'cancel'),
      resolution: 'box_removed',
      resolvedAt: now,
    };
    gracePeriod = ended(current.gracePeriod, 'cancel', now);
  }
  await ctx.gracePeriods.update(tx, gracePeriod);
  await ctx.violations.update(tx, violation);
  await ctx.timeline.cancelRemaining(tx, [gracePeriod.id]);
  if (closing.kind !== 'uphold') await ctx.appeals.withdrawPending(tx, violation.id, now);
  const avatarIds = [avatar.id];
  if (closing.kind === 'resolve') {
    await ctx.outbox(
      tx,
      events.violationResolved(violation, avatar, closing.resolution, now),
      events.gracePeriodResolved(gracePeriod, avatarIds, closing.resolution, now),
    );
  } else if (closing.kind === 'uphold') {
    await ctx.outbox(
      tx,
      events.violationDismissed(violation, avatar, closing.appealId, now),
      events.gracePeriodResolved(gracePeriod, avatarIds, 'dismissed', now),
    );
  } else {
    // No violation event: the box is gone, so its statistics are too; the platform hears
    // grace_period.cancelled (delivered as grace_period.resolved, resolution box_removed).
    await ctx.outbox(tx, events.gracePeriodCancelled(gracePeriod, avatarIds, now));
  }
  return { violation, gracePeriod, avatar };
}
