import { AppError } from '@svc/errors';
import {
  assertReportable,
  dueDateOf,
  periodOf,
  periodStart,
  type ReportingWindow,
} from '../../src/domain/period';

const now = new Date('2026-11-22T10:00:00.000Z');
const active: ReportingWindow = {
  status: 'active',
  validFrom: new Date('2026-09-10T00:00:00Z'),
  endedAt: null,
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
  return undefined;
}

describe('period rules', () => {
  it('when the period is the current one or a past one since the license began, then it is reportable', () => {
    expect(codeOf(() => assertReportable('2026-11', active, now))).toBeUndefined();
    expect(codeOf(() => assertReportable('2026-09', active, now))).toBeUndefined();
  });

  it('when the period is in the future, then it is a VALIDATION_ERROR', () => {
    expect(codeOf(() => assertReportable('2026-12', active, now))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => assertReportable('2027-01', active, now))).toBe('VALIDATION_ERROR');
  });

  it('when the period is before the month the license began, then it is a VALIDATION_ERROR', () => {
    expect(codeOf(() => assertReportable('2026-08', active, now))).toBe('VALIDATION_ERROR');
  });

  it('when the period is not YYYY-MM, then it is a VALIDATION_ERROR', () => {
    for (const bad of ['2026-13', '2026-1', '26-11', '2026/11', '2026-00', '']) {
      expect(codeOf(() => periodStart(bad))).toBe('VALIDATION_ERROR');
    }
  });

  it('when a license ended, then the periods it was active in stay reportable and later ones are INVALID_STATE', () => {
    const cancelled: ReportingWindow = {
      ...active,
      status: 'cancelled',
      endedAt: new Date('2026-10-15T00:00:00Z'),
    };
    expect(codeOf(() => assertReportable('2026-10', cancelled, now))).toBeUndefined();
    expect(codeOf(() => assertReportable('2026-11', cancelled, now))).toBe('INVALID_STATE');
    const revokedAtMonthStart: ReportingWindow = {
      ...active,
      status: 'revoked',
      endedAt: new Date('2026-11-01T00:00:00Z'),
    };
    expect(codeOf(() => assertReportable('2026-11', revokedAtMonthStart, now))).toBe('INVALID_STATE');
    expect(codeOf(() => assertReportable('2026-10', revokedAtMonthStart, now))).toBeUndefined();
  });

  it('when a license is still pending, then nothing is reportable', () => {
    expect(codeOf(() => assertReportable('2026-11', { ...active, status: 'pending' }, now))).toBe(
      'INVALID_STATE',
    );
  });

  it('when the period is December, then the royalty is due on 15 January of the next year', () => {
    expect(dueDateOf('2026-12').toISOString()).toBe('2027-01-15T00:00:00.000Z');
    expect(dueDateOf('2026-10').toISOString()).toBe('2026-11-15T00:00:00.000Z');
    expect(periodOf(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12');
  });
});
