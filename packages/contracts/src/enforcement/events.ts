import { z } from 'zod';
import { defineEvent } from '../common/envelope';
import { instant, policy, severity } from '../common/event-values';

/** The entity each event versions (ADR 0010). */
const byGracePeriod = { entity: 'gracePeriodId' };
const byPlatform = { entity: 'platformId' };
const byViolation = { entity: 'violationId' };

// Enforcement's facts. The envelope's platformId is the platform hosting the avatar (the one
// that must comply); registry's box statistics and the webhook dispatcher consume them.

const violationData = z.object({
  violationId: z.string(),
  boxId: z.string(),
  claimId: z.string(),
  identityName: z.string(),
  /** The platform that owns the box (the identity's side). */
  boxOwnerPlatformId: z.string(),
  policy,
  severity,
  avatarId: z.string(),
  userCount: z.number().int().min(0),
  gracePeriodId: z.string().nullable(),
  occurredAt: instant,
});

export const violationCreated = defineEvent(
  'enforcement.violation.created',
  1,
  violationData.extend({ detectedAt: instant, confidence: z.number().min(0).max(1) }),
  byViolation,
);
export const violationResolved = defineEvent(
  'enforcement.violation.resolved',
  1,
  violationData.extend({
    resolution: z.enum(['licensed', 'removed', 'modified', 'parody']),
    resolvedAt: instant,
    licenseId: z.string().nullable(),
    /** Who resolved it (issue 14); absent in events recorded before it was sent. */
    resolvedBy: z.enum(['platform', 'license', 'avatar_change']).optional(),
  }),
  byViolation,
);
export const violationAppealed = defineEvent(
  'enforcement.violation.appealed',
  1,
  violationData.extend({
    appealId: z.string(),
    reason: z.enum(['parody', 'false_positive', 'common_name', 'authorized', 'other']),
  }),
  byViolation,
);
/** An appeal was upheld: a false positive. */
export const violationDismissed = defineEvent(
  'enforcement.violation.dismissed',
  1,
  violationData.extend({ appealId: z.string() }),
  byViolation,
);
/** An appeal was denied: the violation is pending again. */
export const violationReopened = defineEvent(
  'enforcement.violation.reopened',
  1,
  violationData.extend({ appealId: z.string() }),
  byViolation,
);
/** The grace period ran out: the avatar is to be deactivated. */
export const violationEnforced = defineEvent('enforcement.violation.enforced', 1, violationData, byViolation);

const gracePeriodData = z.object({
  gracePeriodId: z.string(),
  violationId: z.string(),
  boxId: z.string(),
  claimId: z.string(),
  identityName: z.string(),
  boxOwnerPlatformId: z.string(),
  policy,
  status: z.enum(['active', 'paused', 'resolved', 'expired', 'cancelled']),
  startedAt: instant,
  expiresAt: instant,
  daysRemaining: z.number().int().min(0),
  avatarIds: z.array(z.string()),
});

export const gracePeriodStarted = defineEvent(
  'enforcement.grace_period.started',
  1,
  gracePeriodData,
  byGracePeriod,
);
export const gracePeriodReminder = defineEvent(
  'enforcement.grace_period.reminder',
  1,
  gracePeriodData.extend({ reminderDay: z.union([z.literal(7), z.literal(21), z.literal(28)]) }),
  byGracePeriod,
);
/** Two days (two thirtieths of the period) remain. */
export const gracePeriodEnding = defineEvent(
  'enforcement.grace_period.ending',
  1,
  gracePeriodData,
  byGracePeriod,
);
export const gracePeriodPaused = defineEvent(
  'enforcement.grace_period.paused',
  1,
  gracePeriodData.extend({ appealId: z.string() }),
  byGracePeriod,
);
export const gracePeriodResumed = defineEvent(
  'enforcement.grace_period.resumed',
  1,
  gracePeriodData.extend({ appealId: z.string() }),
  byGracePeriod,
);
export const gracePeriodResolved = defineEvent(
  'enforcement.grace_period.resolved',
  1,
  gracePeriodData.extend({
    resolution: z.enum(['licensed', 'removed', 'modified', 'parody', 'dismissed']),
    remainingAvatars: z.number().int().min(0),
  }),
  byGracePeriod,
);
export const gracePeriodExpired = defineEvent(
  'enforcement.grace_period.expired',
  1,
  gracePeriodData,
  byGracePeriod,
);
/** The box was removed. */
export const gracePeriodCancelled = defineEvent(
  'enforcement.grace_period.cancelled',
  1,
  gracePeriodData,
  byGracePeriod,
);

/** Every grace-period event type, for consumers that bind to `enforcement.grace_period.*`. */
export const gracePeriodEvents = [
  gracePeriodStarted,
  gracePeriodReminder,
  gracePeriodEnding,
  gracePeriodPaused,
  gracePeriodResumed,
  gracePeriodResolved,
  gracePeriodExpired,
  gracePeriodCancelled,
] as const;

export const violationEvents = [
  violationCreated,
  violationResolved,
  violationAppealed,
  violationDismissed,
  violationReopened,
  violationEnforced,
] as const;

/**
 * A platform moved its sandbox clock (POST /v1/svc/test-helpers/advance-time). Licensing expires
 * (or renews) that platform's licenses that fall due by `now`, as if the time had passed.
 */
export const clockAdvanced = defineEvent(
  'enforcement.clock.advanced',
  1,
  z.object({
    platformId: z.string(),
    /** The platform's sandbox clock after the move. */
    now: instant,
    advancedBySeconds: z.number().int().min(1),
  }),
  byPlatform,
);

/** A new box's initial scan of every platform's avatars is complete (the box's `initialScan`). */
export const boxScanCompleted = defineEvent(
  'enforcement.box_scan.completed',
  1,
  z.object({
    boxId: z.string(),
    avatarsScanned: z.number().int().min(0),
    violationsCreated: z.number().int().min(0),
    completedAt: instant,
  }),
);

/** Every event enforcement publishes, in declaration order (collected by the package's `allEvents`). */
export const enforcementEvents = [
  ...violationEvents,
  ...gracePeriodEvents,
  clockAdvanced,
  boxScanCompleted,
] as const;
