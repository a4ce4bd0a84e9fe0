import { AppError } from '@svc/errors';
import {
  addMonths,
  assertActive,
  assertDecidable,
  dueAction,
  endOfBillingPeriod,
  licenseFromRequest,
  periodOf,
  scheduledCancellationAt,
  type LicenseRequest,
} from '../../src/domain/license';

const d = (iso: string) => new Date(iso);

function invalidStateOf(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a throw');
}

describe('license request states', () => {
  it('when a request is pending, then it can be decided', () => {
    expect(() => assertDecidable({ id: 'req_1', status: 'pending' })).not.toThrow();
  });

  it.each(['approved', 'denied'] as const)(
    'when a request is %s, then deciding it again is INVALID_STATE',
    (status) => {
      const err = invalidStateOf(() => assertDecidable({ id: 'req_1', status }));
      expect(err.code).toBe('INVALID_STATE');
      expect(err.status).toBe(409);
    },
  );
});

describe('license states', () => {
  it('when active, then it may be renewed, cancelled, revoked', () => {
    expect(() => assertActive({ id: 'lic_1', status: 'active' }, 'renewed')).not.toThrow();
  });

  it.each(['pending', 'expired', 'revoked', 'cancelled'] as const)(
    'when %s, then any change is INVALID_STATE',
    (status) => {
      expect(invalidStateOf(() => assertActive({ id: 'lic_1', status }, 'renewed')).code).toBe(
        'INVALID_STATE',
      );
    },
  );

  const active = {
    status: 'active' as const,
    cancelAt: null,
    expiresAt: d('2026-12-22T10:00:00Z'),
    autoRenew: false,
  };

  it('when the expiry has not come, then nothing is due', () => {
    expect(dueAction(active, d('2026-12-22T09:59:59Z'))).toBe('none');
  });

  it('when the expiry came, then it expires, or renews with autoRenew', () => {
    expect(dueAction(active, d('2026-12-22T10:00:00Z'))).toBe('expire');
    expect(dueAction({ ...active, autoRenew: true }, d('2026-12-22T10:00:00Z'))).toBe('renew');
  });

  it('when a cancellation is scheduled and due, then it wins over renewal', () => {
    expect(
      dueAction(
        { ...active, autoRenew: true, cancelAt: d('2026-12-01T00:00:00Z') },
        d('2026-12-01T00:00:00Z'),
      ),
    ).toBe('cancel');
  });

  it('when the license is not active, then nothing is due', () => {
    expect(dueAction({ ...active, status: 'expired' }, d('2027-12-22T10:00:00Z'))).toBe('none');
  });
});

describe('calendar rules', () => {
  it('when adding months, then the day is kept or clamped to the end of a shorter month', () => {
    expect(addMonths(d('2026-11-22T10:00:00Z'), 1).toISOString()).toBe('2026-12-22T10:00:00.000Z');
    expect(addMonths(d('2026-01-31T00:00:00Z'), 1).toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(addMonths(d('2026-11-30T00:00:00Z'), 3).toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(addMonths(d('2026-05-15T00:00:00Z'), 12).toISOString()).toBe('2027-05-15T00:00:00.000Z');
  });

  it('when asked for the billing period, then it is the UTC month', () => {
    expect(periodOf(d('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(endOfBillingPeriod(d('2026-12-05T00:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('when a cancellation is scheduled, then it is the end of the month, or the expiry if earlier', () => {
    expect(scheduledCancellationAt(d('2026-11-22T10:00:00Z'), d('2026-12-22T10:00:00Z')).toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
    expect(scheduledCancellationAt(d('2026-11-22T10:00:00Z'), d('2026-11-25T10:00:00Z')).toISOString()).toBe(
      '2026-11-25T10:00:00.000Z',
    );
  });
});

describe('licenseFromRequest', () => {
  it('when a request is approved, then the license is active from now for the requested term', () => {
    const request = {
      id: 'req_1',
      boxId: 'box_1',
      claimId: 'claim_1',
      identityName: 'Ada',
      boxOwnerPlatformId: 'plat_o',
      licenseePlatformId: 'plat_l',
      licenseePlatformName: 'L',
      tier: 'creator',
      termMonths: 3,
      autoRenew: true,
      monthlyFeeCents: 4999n,
      royaltyRate: 0,
      currency: 'USD',
      terms: {
        maxUsers: null,
        contentGuidelines: null,
        nsfw: false,
        exclusivity: false,
        territory: 'worldwide',
      },
    } as unknown as LicenseRequest;
    const license = licenseFromRequest(request, 'lic_1', d('2026-11-22T10:00:00Z'));
    expect(license).toMatchObject({
      id: 'lic_1',
      requestId: 'req_1',
      status: 'active',
      monthlyFeeCents: 4999n,
      autoRenew: true,
      cancelAt: null,
    });
    expect(license.validFrom.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(license.expiresAt.toISOString()).toBe('2027-02-22T10:00:00.000Z');
  });
});
