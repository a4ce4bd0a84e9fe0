import type { GracePeriod } from './grace-period';
import type { TimelineStep } from './ports';
import type { NotificationDay, StepKind } from './timeline';

export interface NotificationState {
  sent: boolean;
  at?: Date;
  scheduledAt?: Date;
  recipients?: string[];
}

const REMINDERS: [NotificationDay, StepKind][] = [
  ['day7', 'reminder_7'],
  ['day21', 'reminder_21'],
  ['day28', 'reminder_28'],
];

/**
 * The four notifications of a grace period: day 0 when it started; days 7, 21 and 28 from their
 * timeline steps (scheduled while the period runs, sent once fired, never once it ended first).
 */
export function notificationsOf(
  gp: Pick<GracePeriod, 'startedAt' | 'day0Recipients'>,
  steps: TimelineStep[],
): Record<NotificationDay, NotificationState> {
  const result: Record<NotificationDay, NotificationState> = {
    day0: { sent: true, at: gp.startedAt, scheduledAt: gp.startedAt, recipients: gp.day0Recipients },
    day7: { sent: false },
    day21: { sent: false },
    day28: { sent: false },
  };
  for (const [day, kind] of REMINDERS) {
    const step = steps.find((s) => s.kind === kind);
    if (step === undefined) continue;
    if (step.status === 'fired') {
      result[day] = {
        sent: true,
        scheduledAt: step.dueAt,
        ...(step.firedAt === null ? {} : { at: step.firedAt }),
        recipients: step.recipients ?? [],
      };
    } else if (step.status !== 'cancelled') {
      result[day] = { sent: false, scheduledAt: step.dueAt };
    }
  }
  return result;
}
