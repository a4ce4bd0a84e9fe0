import type { EventEnvelope } from '@svc/contracts/common';
import {
  boxScanCompleted,
  clockAdvanced,
  gracePeriodCancelled,
  gracePeriodEnding,
  gracePeriodExpired,
  gracePeriodPaused,
  gracePeriodReminder,
  gracePeriodResolved,
  gracePeriodResumed,
  gracePeriodStarted,
  violationAppealed,
  violationCreated,
  violationDismissed,
  violationEnforced,
  violationReopened,
  violationResolved,
} from '@svc/contracts/enforcement';
import type { Appeal } from './appeal';
import type { Avatar } from './avatar';
import { daysRemaining, type GracePeriod } from './grace-period';
import type { BoxScan } from './ports';
import type { Resolution, Violation } from './violation';

// Enforcement's events, built from the domain objects. The envelope's platformId is the platform
// hosting the avatar; occurredAt is that platform's time (its sandbox clock included).

type AvatarRef = Pick<Avatar, 'id' | 'userCount'>;

function meta(platformId: string, at: Date) {
  return { platformId, occurredAt: at };
}

function violationData(v: Violation, avatar: AvatarRef, at: Date) {
  return {
    violationId: v.id,
    boxId: v.boxId,
    claimId: v.claimId,
    identityName: v.identityName,
    boxOwnerPlatformId: v.boxOwnerPlatformId,
    policy: v.policy,
    severity: v.severity,
    avatarId: avatar.id,
    userCount: avatar.userCount,
    gracePeriodId: v.gracePeriodId,
    occurredAt: at.toISOString(),
  };
}

/** `daysAt`: the instant daysRemaining is counted from (a step's due time, else now). */
function gracePeriodData(gp: GracePeriod, avatarIds: string[], daysAt: Date) {
  return {
    gracePeriodId: gp.id,
    violationId: gp.violationId,
    boxId: gp.boxId,
    claimId: gp.claimId,
    identityName: gp.identityName,
    boxOwnerPlatformId: gp.boxOwnerPlatformId,
    policy: gp.policy,
    status: gp.status,
    startedAt: gp.startedAt.toISOString(),
    expiresAt: gp.expiresAt.toISOString(),
    daysRemaining: daysRemaining(gp, daysAt),
    avatarIds,
  };
}

export const events = {
  violationCreated: (v: Violation, avatar: AvatarRef, at: Date): EventEnvelope =>
    violationCreated.create(
      {
        ...violationData(v, avatar, at),
        detectedAt: v.detectedAt.toISOString(),
        confidence: v.detection.confidence,
      },
      meta(v.platformId, at),
    ),
  violationResolved: (v: Violation, avatar: AvatarRef, resolution: Resolution, at: Date): EventEnvelope =>
    violationResolved.create(
      {
        ...violationData(v, avatar, at),
        resolution,
        resolvedAt: at.toISOString(),
        licenseId: v.licenseId,
        ...(v.resolvedBy === null ? {} : { resolvedBy: v.resolvedBy }),
      },
      meta(v.platformId, at),
    ),
  violationAppealed: (v: Violation, avatar: AvatarRef, appeal: Appeal, at: Date): EventEnvelope =>
    violationAppealed.create(
      { ...violationData(v, avatar, at), appealId: appeal.id, reason: appeal.reason },
      meta(v.platformId, at),
    ),
  violationDismissed: (v: Violation, avatar: AvatarRef, appealId: string, at: Date): EventEnvelope =>
    violationDismissed.create({ ...violationData(v, avatar, at), appealId }, meta(v.platformId, at)),
  violationReopened: (v: Violation, avatar: AvatarRef, appealId: string, at: Date): EventEnvelope =>
    violationReopened.create({ ...violationData(v, avatar, at), appealId }, meta(v.platformId, at)),
  violationEnforced: (v: Violation, avatar: AvatarRef, at: Date): EventEnvelope =>
    violationEnforced.create(violationData(v, avatar, at), meta(v.platformId, at)),

  gracePeriodStarted: (gp: GracePeriod, avatarIds: string[], at: Date): EventEnvelope =>
    gracePeriodStarted.create(gracePeriodData(gp, avatarIds, at), meta(gp.platformId, at)),
  gracePeriodReminder: (
    gp: GracePeriod,
    avatarIds: string[],
    reminderDay: 7 | 21 | 28,
    dueAt: Date,
    at: Date,
  ): EventEnvelope =>
    gracePeriodReminder.create(
      { ...gracePeriodData(gp, avatarIds, dueAt), reminderDay },
      meta(gp.platformId, at),
    ),
  gracePeriodEnding: (gp: GracePeriod, avatarIds: string[], dueAt: Date, at: Date): EventEnvelope =>
    gracePeriodEnding.create(gracePeriodData(gp, avatarIds, dueAt), meta(gp.platformId, at)),
  gracePeriodExpired: (gp: GracePeriod, avatarIds: string[], at: Date): EventEnvelope =>
    gracePeriodExpired.create(gracePeriodData(gp, avatarIds, at), meta(gp.platformId, at)),
  gracePeriodPaused: (gp: GracePeriod, avatarIds: string[], appealId: string, at: Date): EventEnvelope =>
    gracePeriodPaused.create({ ...gracePeriodData(gp, avatarIds, at), appealId }, meta(gp.platformId, at)),
  gracePeriodResumed: (gp: GracePeriod, avatarIds: string[], appealId: string, at: Date): EventEnvelope =>
    gracePeriodResumed.create({ ...gracePeriodData(gp, avatarIds, at), appealId }, meta(gp.platformId, at)),
  gracePeriodResolved: (
    gp: GracePeriod,
    avatarIds: string[],
    resolution: Resolution | 'dismissed',
    at: Date,
  ): EventEnvelope =>
    gracePeriodResolved.create(
      { ...gracePeriodData(gp, avatarIds, at), resolution, remainingAvatars: 0 },
      meta(gp.platformId, at),
    ),
  gracePeriodCancelled: (gp: GracePeriod, avatarIds: string[], at: Date): EventEnvelope =>
    gracePeriodCancelled.create(gracePeriodData(gp, avatarIds, at), meta(gp.platformId, at)),

  clockAdvanced: (platformId: string, now: Date, advancedBySeconds: number): EventEnvelope =>
    clockAdvanced.create({ platformId, now: now.toISOString(), advancedBySeconds }, meta(platformId, now)),
  boxScanCompleted: (scan: BoxScan, at: Date): EventEnvelope =>
    boxScanCompleted.create(
      {
        boxId: scan.boxId,
        avatarsScanned: scan.avatarsScanned,
        violationsCreated: scan.violationsCreated,
        completedAt: at.toISOString(),
      },
      { occurredAt: at },
    ),
};
