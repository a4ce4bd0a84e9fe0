import { decided, type Appeal } from '../../src/domain/appeal';
import {
  canGracePeriod,
  daysRemaining,
  ended,
  nextGracePeriodStatus,
  paused,
  reopened,
  resumed,
  type GracePeriod,
} from '../../src/domain/grace-period';
import { canViolation, nextViolationStatus, type ViolationStatus } from '../../src/domain/violation';

const DAY = 86_400_000;
const START = new Date('2026-03-01T00:00:00.000Z');
const at = (days: number) => new Date(START.getTime() + days * DAY);

function gracePeriod(overrides: Partial<GracePeriod> = {}): GracePeriod {
  return {
    id: 'gp_1',
    platformId: 'plat_1',
    violationId: 'viol_1',
    boxId: 'box_1',
    claimId: 'claim_1',
    identityName: 'Ada Lovelace',
    boxOwnerPlatformId: 'plat_owner',
    policy: 'LICENSE',
    environment: 'production',
    enforcement: 'MODERATE',
    status: 'active',
    startedAt: START,
    expiresAt: at(30),
    pausedAt: null,
    pausedMs: 0,
    resolution: null,
    resolvedAt: null,
    endedAt: null,
    day0Recipients: [],
    ...overrides,
  };
}

const ALL_VIOLATION: ViolationStatus[] = ['pending', 'resolved', 'enforced', 'appealed', 'dismissed'];

describe('the violation state machine', () => {
  it.each([
    ['resolve', ['pending', 'appealed'], 'resolved'],
    ['appeal', ['pending'], 'appealed'],
    ['uphold', ['appealed'], 'dismissed'],
    ['deny', ['appealed'], 'pending'],
    ['enforce', ['pending'], 'enforced'],
    ['cancel', ['pending', 'appealed'], 'dismissed'],
  ] as const)(
    'when %s, then allowed only from %j, to %s; otherwise 409 INVALID_STATE',
    (action, from, to) => {
      for (const status of ALL_VIOLATION) {
        const allowed = (from as readonly string[]).includes(status);
        expect(canViolation(status, action)).toBe(allowed);
        if (allowed) expect(nextViolationStatus({ id: 'viol_1', status }, action)).toBe(to);
        else
          expect(() => nextViolationStatus({ id: 'viol_1', status }, action)).toThrow(
            expect.objectContaining({ code: 'INVALID_STATE', status: 409 }),
          );
      }
    },
  );
});

describe('the grace period state machine', () => {
  it('when a resolution is set aside (contest upheld), then active again with the time it had left', () => {
    const resolved = ended(gracePeriod(), 'resolve', at(10), 'removed');
    const { gracePeriod: back, shiftMs } = reopened(resolved, at(14));
    expect(shiftMs).toBe(4 * DAY);
    expect(back).toMatchObject({ status: 'active', expiresAt: at(34), resolution: null, resolvedAt: null });
    expect(daysRemaining(back, at(14))).toBe(20);
    for (const status of ['active', 'paused', 'expired', 'cancelled'] as const) {
      expect(canGracePeriod(status, 'reopen')).toBe(false);
    }
    expect(canViolation('resolved', 'reopen')).toBe(true);
    expect(canViolation('dismissed', 'reopen')).toBe(false);
  });

  it('when paused and resumed, then the paused stretch is added back to the expiry', () => {
    const p = paused(gracePeriod(), at(10));
    expect(p).toMatchObject({ status: 'paused', pausedAt: at(10) });
    expect(daysRemaining(p, at(15))).toBe(20);
    const { gracePeriod: r, pausedForMs } = resumed(p, at(15));
    expect(pausedForMs).toBe(5 * DAY);
    expect(r).toMatchObject({ status: 'active', pausedAt: null, pausedMs: 5 * DAY, expiresAt: at(35) });
    expect(daysRemaining(r, at(15))).toBe(20);
  });

  it('when paused twice, then both stretches count', () => {
    const once = resumed(paused(gracePeriod(), at(1)), at(3)).gracePeriod;
    const twice = resumed(paused(once, at(5)), at(6)).gracePeriod;
    expect(twice).toMatchObject({ pausedMs: 3 * DAY, expiresAt: at(33) });
  });

  it('when a transition is not allowed from the status, then 409 INVALID_STATE', () => {
    expect(() => nextGracePeriodStatus(gracePeriod({ status: 'paused' }), 'pause')).toThrow(
      expect.objectContaining({ code: 'INVALID_STATE' }),
    );
    expect(() => resumed(gracePeriod(), at(1))).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    expect(() => ended(gracePeriod({ status: 'paused' }), 'expire', at(1))).toThrow(
      expect.objectContaining({ code: 'INVALID_STATE' }),
    );
    for (const status of ['resolved', 'expired', 'cancelled'] as const) {
      for (const action of ['pause', 'resume', 'resolve', 'expire', 'cancel'] as const) {
        expect(canGracePeriod(status, action)).toBe(false);
      }
    }
    expect(canGracePeriod('paused', 'resolve')).toBe(true);
    expect(canGracePeriod('paused', 'cancel')).toBe(true);
  });

  it('when ended, then 0 days remain and a resolution is kept', () => {
    const resolved = ended(gracePeriod(), 'resolve', at(3), 'licensed');
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolution: 'licensed',
      resolvedAt: at(3),
      endedAt: at(3),
    });
    expect(daysRemaining(resolved, at(3))).toBe(0);
    expect(ended(gracePeriod(), 'expire', at(30)).status).toBe('expired');
    expect(ended(gracePeriod({ status: 'paused' }), 'cancel', at(2)).status).toBe('cancelled');
  });

  it('when in sandbox, then days remaining count sandbox days (48 minutes)', () => {
    const sandbox = gracePeriod({
      environment: 'sandbox',
      expiresAt: new Date(START.getTime() + 24 * 3_600_000),
    });
    expect(daysRemaining(sandbox, START)).toBe(30);
    expect(daysRemaining(sandbox, new Date(START.getTime() + 22.4 * 3_600_000))).toBe(2);
  });
});

describe('appeal decisions', () => {
  const appeal: Appeal = {
    id: 'appeal_1',
    kind: 'appeal',
    platformId: 'plat_1',
    violationId: 'viol_1',
    gracePeriodId: 'gp_1',
    reason: 'parody',
    explanation: 'Satire',
    evidence: [],
    status: 'pending',
    submittedAt: START,
    decidedAt: null,
    decidedBy: null,
    notes: null,
  };

  it('when a pending appeal is decided, then it takes the outcome; a decided one is 409', () => {
    const upheld = decided(appeal, 'upheld', 'operator', 'ok', at(1));
    expect(upheld).toMatchObject({ status: 'upheld', decidedAt: at(1), decidedBy: 'operator', notes: 'ok' });
    expect(() => decided(upheld, 'denied', 'operator', null, at(2))).toThrow(
      expect.objectContaining({ code: 'INVALID_STATE' }),
    );
  });
});
