// The grace period's timeline (docs/spec/service-interface.md, Limits; docs/spec/contracts.md §1, §8): when each
// timed step falls due, from the environment and the box's enforcement level. Pure arithmetic.

export type Environment = 'sandbox' | 'production';
export type EnforcementLevel = 'STRICT' | 'MODERATE' | 'RELAXED';
export type StepKind = 'reminder_7' | 'reminder_21' | 'reminder_28' | 'ending' | 'expiry';
export type NotificationDay = 'day0' | 'day7' | 'day21' | 'day28';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** RELAXED grants half as long again (every offset scaled); STRICT and MODERATE the standard period. */
export const RELAXED_FACTOR = 1.5;

/** Offsets from the start, in the order the steps fire (reminder 28 before the ending warning on a tie). */
const OFFSETS: Record<Environment, readonly [StepKind, number][]> = {
  production: [
    ['reminder_7', 7 * DAY],
    ['reminder_21', 21 * DAY],
    ['reminder_28', 28 * DAY],
    ['ending', 28 * DAY],
    ['expiry', 30 * DAY],
  ],
  // Sandbox compresses 30 days into 24 hours; "ending" is two thirtieths before the end (hour 22.4).
  sandbox: [
    ['reminder_7', 6 * HOUR],
    ['reminder_21', 18 * HOUR],
    ['reminder_28', 22 * HOUR],
    ['ending', 22.4 * HOUR],
    ['expiry', 24 * HOUR],
  ],
};

/** The reminder day each reminder step stands for (grace_period.reminder's reminderDay). */
export const REMINDER_DAY: Partial<Record<StepKind, 7 | 21 | 28>> = {
  reminder_7: 7,
  reminder_21: 21,
  reminder_28: 28,
};

/** The notification a step sends (reminders only). */
export const NOTIFICATION_OF: Partial<Record<StepKind, NotificationDay>> = {
  reminder_7: 'day7',
  reminder_21: 'day21',
  reminder_28: 'day28',
};

function scale(enforcement: EnforcementLevel): number {
  return enforcement === 'RELAXED' ? RELAXED_FACTOR : 1;
}

export interface PlannedStep {
  kind: StepKind;
  /** Order among the steps of one grace period. */
  position: number;
  dueAt: Date;
}

/** Every timed step of a grace period that starts at `startedAt`, in firing order; the last is the expiry. */
export function planTimeline(
  environment: Environment,
  enforcement: EnforcementLevel,
  startedAt: Date,
): PlannedStep[] {
  const factor = scale(enforcement);
  return OFFSETS[environment].map(([kind, offset], position) => ({
    kind,
    position,
    dueAt: new Date(startedAt.getTime() + Math.round(offset * factor)),
  }));
}

/** How long a grace period lasts. */
export function gracePeriodLength(environment: Environment, enforcement: EnforcementLevel): number {
  const expiry = OFFSETS[environment].find(([kind]) => kind === 'expiry');
  return Math.round((expiry?.[1] ?? 0) * scale(enforcement));
}

/**
 * The length of one "day" of daysRemaining: a day in production, a thirtieth of 24 hours (48
 * minutes) in sandbox, so that a period starts at 30 days remaining in both environments.
 */
export function dayLength(environment: Environment): number {
  return environment === 'production' ? DAY : DAY / 30;
}

/** Whole days (rounded up) from `from` until `until`, never negative. */
export function daysBetween(environment: Environment, from: Date, until: Date): number {
  const remaining = until.getTime() - from.getTime();
  return remaining <= 0 ? 0 : Math.ceil(remaining / dayLength(environment));
}
