import { errors } from '@svc/errors';

// A period is a calendar month in UTC, `YYYY-MM`.

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The first instant of `period` (UTC). */
export function periodStart(period: string): Date {
  const match = PERIOD.exec(period);
  if (match === null)
    throw errors.validation('Invalid request', {
      fields: [{ field: 'period', message: 'expected YYYY-MM' }],
    });
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
}

/** The period an instant falls in. */
export function periodOf(instant: Date): string {
  return `${instant.getUTCFullYear()}-${String(instant.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** When the royalty of `period` is due: the 15th of the following month, UTC midnight. */
export function dueDateOf(period: string): Date {
  const start = periodStart(period);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 15));
}

/** A license's reporting window, as the projection knows it. */
export interface ReportingWindow {
  status: 'pending' | 'active' | 'expired' | 'revoked' | 'cancelled';
  validFrom: Date;
  /** When it stopped being active (cancelled, revoked, expired); null while active. */
  endedAt: Date | null;
}

/**
 * Whether usage of `period` may be reported now. Refused: a period in the future (after the
 * clock's month), a period before the month the license began (VALIDATION_ERROR), a license
 * never active (pending), and a period that begins at or after the license ended (INVALID_STATE).
 * A license that ended may still report, and correct, the periods it was active in.
 */
export function assertReportable(period: string, window: ReportingWindow, now: Date): void {
  const start = periodStart(period);
  if (period > periodOf(now)) {
    throw errors.validation('Invalid request', {
      fields: [{ field: 'period', message: `must not be after the current period ${periodOf(now)}` }],
    });
  }
  if (period < periodOf(window.validFrom)) {
    throw errors.validation('Invalid request', {
      fields: [
        { field: 'period', message: `must not be before the license began (${periodOf(window.validFrom)})` },
      ],
    });
  }
  if (window.status === 'pending') throw errors.invalidState('The license is not active yet');
  if (
    window.status !== 'active' &&
    (window.endedAt === null || start.getTime() >= window.endedAt.getTime())
  ) {
    throw errors.invalidState(`The license is ${window.status}: no usage can be reported for ${period}`, {
      status: window.status,
      endedAt: window.endedAt?.toISOString() ?? null,
    });
  }
}
