import { errors } from '@svc/errors';
import type { Policy } from '@svc/contracts/common';
import { daysBetween, type EnforcementLevel, type Environment } from './timeline';

export type GracePeriodStatus = 'active' | 'paused' | 'resolved' | 'expired' | 'cancelled';

export interface GracePeriod {
  id: string;
  platformId: string;
  violationId: string;
  boxId: string;
  claimId: string;
  identityName: string;
  boxOwnerPlatformId: string;
  policy: Policy;
  environment: Environment;
  enforcement: EnforcementLevel;
  status: GracePeriodStatus;
  startedAt: Date;
  /** Pushed back by every paused stretch once the pause ends. */
  expiresAt: Date;
  pausedAt: Date | null;
  /** Total time spent paused, added back to the countdown. */
  pausedMs: number;
  resolution: string | null;
  resolvedAt: Date | null;
  endedAt: Date | null;
  day0Recipients: string[];
}

export type GracePeriodAction = 'pause' | 'resume' | 'resolve' | 'expire' | 'cancel' | 'reopen';

const TRANSITIONS: Record<GracePeriodAction, { from: readonly GracePeriodStatus[]; to: GracePeriodStatus }> =
  {
    pause: { from: ['active'], to: 'paused' },
    resume: { from: ['paused'], to: 'active' },
    resolve: { from: ['active', 'paused'], to: 'resolved' },
    expire: { from: ['active'], to: 'expired' },
    cancel: { from: ['active', 'paused'], to: 'cancelled' },
    // The box owner's contest of its resolution was upheld.
    reopen: { from: ['resolved'], to: 'active' },
  };

export function canGracePeriod(status: GracePeriodStatus, action: GracePeriodAction): boolean {
  return TRANSITIONS[action].from.includes(status);
}

/** The status after `action`; 409 INVALID_STATE when it is not allowed from the current one. */
export function nextGracePeriodStatus(
  gp: Pick<GracePeriod, 'id' | 'status'>,
  action: GracePeriodAction,
): GracePeriodStatus {
  const transition = TRANSITIONS[action];
  if (!transition.from.includes(gp.status)) {
    throw errors.invalidState(`Grace period ${gp.id} is ${gp.status}: it cannot be ${action}d`, {
      status: gp.status,
      allowedFrom: [...transition.from],
    });
  }
  return transition.to;
}

/** Paused at `now`: the countdown stops. */
export function paused(gp: GracePeriod, now: Date): GracePeriod {
  return { ...gp, status: nextGracePeriodStatus(gp, 'pause'), pausedAt: now };
}

/** Resumed at `now`: the paused stretch is added back to the expiry (and to every step still to come). */
export function resumed(gp: GracePeriod, now: Date): { gracePeriod: GracePeriod; pausedForMs: number } {
  const status = nextGracePeriodStatus(gp, 'resume');
  const pausedForMs = Math.max(0, now.getTime() - (gp.pausedAt ?? now).getTime());
  return {
    gracePeriod: {
      ...gp,
      status,
      pausedAt: null,
      pausedMs: gp.pausedMs + pausedForMs,
      expiresAt: new Date(gp.expiresAt.getTime() + pausedForMs),
    },
    pausedForMs,
  };
}

/** Closed for good: resolved, expired or cancelled at `now`. */
export function ended(
  gp: GracePeriod,
  action: 'resolve' | 'expire' | 'cancel',
  now: Date,
  resolution: string | null = null,
): GracePeriod {
  const status = nextGracePeriodStatus(gp, action);
  return {
    ...gp,
    status,
    pausedAt: null,
    endedAt: now,
    resolution: action === 'resolve' ? resolution : gp.resolution,
    resolvedAt: action === 'resolve' ? now : gp.resolvedAt,
  };
}

/**
 * A resolution set aside at `now` (a contest upheld): active again with the time it had left when
 * it was resolved, i.e. the stretch since the resolution is added to the expiry and to every step
 * still to come.
 */
export function reopened(gp: GracePeriod, now: Date): { gracePeriod: GracePeriod; shiftMs: number } {
  const status = nextGracePeriodStatus(gp, 'reopen');
  const shiftMs = Math.max(0, now.getTime() - (gp.resolvedAt ?? now).getTime());
  return {
    gracePeriod: {
      ...gp,
      status,
      expiresAt: new Date(gp.expiresAt.getTime() + shiftMs),
      resolution: null,
      resolvedAt: null,
      endedAt: null,
    },
    shiftMs,
  };
}

/**
 * Days left (docs/spec/service-interface.md: daysRemaining): counted to expiresAt while active; frozen at
 * the moment of the pause while paused; 0 once ended.
 */
export function daysRemaining(
  gp: Pick<GracePeriod, 'status' | 'environment' | 'expiresAt' | 'pausedAt'>,
  now: Date,
): number {
  if (gp.status === 'active') return daysBetween(gp.environment, now, gp.expiresAt);
  if (gp.status === 'paused') return daysBetween(gp.environment, gp.pausedAt ?? now, gp.expiresAt);
  return 0;
}
