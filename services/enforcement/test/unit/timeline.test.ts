import { dayLength, daysBetween, gracePeriodLength, planTimeline } from '../../src/domain/timeline';

const START = new Date('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function offsets(environment: 'sandbox' | 'production', enforcement: 'STRICT' | 'MODERATE' | 'RELAXED') {
  return planTimeline(environment, enforcement, START).map((s) => [
    s.kind,
    s.dueAt.getTime() - START.getTime(),
  ]);
}

describe('the grace period timeline', () => {
  it('when in production, then reminders on days 7, 21, 28, the ending warning with 2 days left and expiry on day 30', () => {
    expect(offsets('production', 'MODERATE')).toEqual([
      ['reminder_7', 7 * DAY],
      ['reminder_21', 21 * DAY],
      ['reminder_28', 28 * DAY],
      ['ending', 28 * DAY],
      ['expiry', 30 * DAY],
    ]);
    expect(gracePeriodLength('production', 'MODERATE')).toBe(30 * DAY);
  });

  it('when in sandbox, then 24 hours: reminders at hours 6, 18, 22, ending at 22.4, expiry at 24', () => {
    expect(offsets('sandbox', 'MODERATE')).toEqual([
      ['reminder_7', 6 * HOUR],
      ['reminder_21', 18 * HOUR],
      ['reminder_28', 22 * HOUR],
      ['ending', 22.4 * HOUR],
      ['expiry', 24 * HOUR],
    ]);
    expect(gracePeriodLength('sandbox', 'STRICT')).toBe(24 * HOUR);
  });

  it('when the box is RELAXED, then every offset is 1.5 times as long, in both environments', () => {
    expect(offsets('production', 'RELAXED')).toEqual(
      offsets('production', 'MODERATE').map(([kind, ms]) => [kind, (ms as number) * 1.5]),
    );
    expect(offsets('sandbox', 'RELAXED').map(([, ms]) => ms)).toEqual(
      [9, 27, 33, 33.6, 36].map((h) => h * HOUR),
    );
    expect(gracePeriodLength('production', 'RELAXED')).toBe(45 * DAY);
  });

  it('when STRICT, then the standard period (strictness is about parody and thresholds, not time)', () => {
    expect(offsets('production', 'STRICT')).toEqual(offsets('production', 'MODERATE'));
  });

  it('when steps are planned, then their positions follow the firing order', () => {
    expect(planTimeline('production', 'MODERATE', START).map((s) => s.position)).toEqual([0, 1, 2, 3, 4]);
  });

  it('when counting days remaining, then whole days rounded up, sandbox days being a thirtieth of 24 hours', () => {
    expect(dayLength('production')).toBe(DAY);
    expect(dayLength('sandbox')).toBe(48 * 60_000);
    expect(daysBetween('production', START, new Date(START.getTime() + 30 * DAY))).toBe(30);
    expect(daysBetween('production', START, new Date(START.getTime() + 29 * DAY + 1))).toBe(30);
    expect(daysBetween('sandbox', START, new Date(START.getTime() + 24 * HOUR))).toBe(30);
    expect(daysBetween('sandbox', START, new Date(START.getTime() + 1.6 * HOUR))).toBe(2);
    expect(daysBetween('production', START, START)).toBe(0);
    expect(daysBetween('production', START, new Date(START.getTime() - DAY))).toBe(0);
  });
});
