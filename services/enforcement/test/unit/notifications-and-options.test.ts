import { notificationsOf } from '../../src/domain/notifications';
import type { TimelineStep } from '../../src/domain/ports';
import { pricingOf, resolutionOptions } from '../../src/domain/resolution-options';

const START = new Date('2026-03-01T00:00:00.000Z');
const step = (kind: TimelineStep['kind'], status: TimelineStep['status'], days: number): TimelineStep => ({
  id: kind,
  gracePeriodId: 'gp_1',
  platformId: 'plat_1',
  kind,
  position: 0,
  dueAt: new Date(START.getTime() + days * 86_400_000),
  status,
  firedAt: status === 'fired' ? new Date(START.getTime() + days * 86_400_000) : null,
  recipients: status === 'fired' ? ['c@example.com'] : null,
});

describe('notificationsOf', () => {
  it('when reminders fired, were scheduled or cancelled, then sent with at, scheduled, or not sent', () => {
    const n = notificationsOf({ startedAt: START, day0Recipients: ['c@example.com'] }, [
      step('reminder_7', 'fired', 7),
      step('reminder_21', 'held', 21),
      step('reminder_28', 'cancelled', 28),
    ]);
    expect(n.day0).toEqual({ sent: true, at: START, scheduledAt: START, recipients: ['c@example.com'] });
    expect(n.day7).toMatchObject({ sent: true, recipients: ['c@example.com'] });
    expect(n.day21).toEqual({ sent: false, scheduledAt: new Date('2026-03-22T00:00:00.000Z') });
    expect(n.day28).toEqual({ sent: false });
  });
});

describe('resolution options', () => {
  it('when the box has license types, then the license option carries their prices', () => {
    expect(pricingOf({ licenseTypes: { personal: { price: 9.99 }, creator: { price: 49 } } })).toEqual({
      personal: 9.99,
      creator: 49,
      commercial: null,
    });
  });

  it('when pending, then all four are available; BLOCK_ALL is not licensable; a closed violation has none', () => {
    const open = resolutionOptions({ id: 'viol_1', status: 'pending', policy: 'LICENSE' }, 'a1', {});
    expect(open.map((o) => [o.type, o.available])).toEqual([
      ['license', true],
      ['remove', true],
      ['modify', true],
      ['appeal', true],
    ]);
    const blocked = resolutionOptions({ id: 'viol_1', status: 'appealed', policy: 'BLOCK_ALL' }, 'a1', {});
    expect(blocked.map((o) => o.available)).toEqual([false, true, true, false]);
    const closed = resolutionOptions({ id: 'viol_1', status: 'enforced', policy: 'LICENSE' }, 'a1', {});
    expect(closed.every((o) => !o.available)).toBe(true);
  });
});
