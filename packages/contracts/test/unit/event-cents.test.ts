import { ZodError } from 'zod';
import { paymentDue, usageReported } from '../../src/billing';
import { licenseActivated } from '../../src/licensing';

// ADR 0039: events carry cents as decimal text, exact at any size a column keeps; producers may
// hand over the bigint; consumers read the number form of older events for one release.

const MAX_CENTS = 9_223_372_036_854_775_807n;
const meta = { occurredAt: new Date('2026-11-20T00:00:00.000Z'), platformId: 'plat_payer' };

function due(amountCents: unknown) {
  return {
    paymentId: 'led_1',
    kind: 'fee' as const,
    version: 1,
    licenseId: 'lic_1',
    boxId: 'box_1',
    period: '2026-11',
    amountCents: amountCents as string,
    currency: 'USD',
    recipient: 'plat_owner',
    payerPlatformId: 'plat_payer',
    dueDate: '2026-12-15T00:00:00.000Z',
  };
}

/** What a consumer at the other end of the broker reads. */
function overTheWire<T>(envelope: T): unknown {
  return JSON.parse(JSON.stringify(envelope));
}

describe('events: money as cents text', () => {
  it('when a producer hands over a bigint, then the event carries its digits and a consumer reads them back', () => {
    for (const cents of [0n, 1n, 2n ** 53n + 1n, MAX_CENTS]) {
      const event = paymentDue.create(due(cents), meta);
      expect(event.data.amountCents).toBe(cents.toString());
      expect(BigInt(paymentDue.parse(overTheWire(event)).data.amountCents)).toBe(cents);
    }
  });

  it('when every amount of a usage report is past 2^53, then none changes across the wire', () => {
    const big = (n: bigint) => 2n ** 60n + n;
    const event = usageReported.create(
      {
        reportId: 'usage_1',
        licenseId: 'lic_1',
        boxId: 'box_1',
        licenseePlatformId: 'plat_payer',
        licenseePlatformName: 'Payer',
        boxOwnerPlatformId: 'plat_owner',
        period: '2026-11',
        version: 1,
        metrics: {},
        users: 0,
        revenueCents: { subscriptions: big(1n), messages: big(2n), tips: big(3n), ads: 0n, other: 0n },
        totalRevenueCents: big(1n) + big(2n) + big(3n),
        royaltyRate: 0.15,
        royaltyDueCents: big(7n),
        currency: 'USD',
        dueDate: '2026-12-15T00:00:00.000Z',
        reportedAt: '2026-11-20T00:00:00.000Z',
      },
      meta,
    );
    const { data } = usageReported.parse(overTheWire(event));
    expect(data.revenueCents).toEqual({
      subscriptions: (2n ** 60n + 1n).toString(),
      messages: (2n ** 60n + 2n).toString(),
      tips: (2n ** 60n + 3n).toString(),
      ads: '0',
      other: '0',
    });
    expect(data.totalRevenueCents).toBe((3n * 2n ** 60n + 6n).toString());
    expect(data.royaltyDueCents).toBe((2n ** 60n + 7n).toString());
  });

  it('when a producer hands over more than the largest amount, then create refuses it, naming the field', () => {
    const refusal = (() => {
      try {
        paymentDue.create(due(MAX_CENTS + 1n), meta);
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(ZodError);
    expect((refusal as ZodError).issues).toEqual([
      expect.objectContaining({ path: ['amountCents'], message: `at most ${MAX_CENTS} cents` }),
    ]);
  });

  it('when a producer hands over a number past 2^53, a fraction or a negative amount, then create refuses it', () => {
    expect(() => paymentDue.create(due(2 ** 53), meta)).toThrow(/may be rounded: send them as a string/);
    expect(() => paymentDue.create(due(12.5), meta)).toThrow(/whole number/);
    expect(() => paymentDue.create(due(-1n), meta)).toThrow(/≥ 0/);
    expect(() => paymentDue.create(due('1e3'), meta)).toThrow(/decimal digits/);
  });

  it('when an event written before ADR 0039 (number cents) is read, then the amount comes out as text', () => {
    const old = { ...(overTheWire(paymentDue.create(due(0n), meta)) as object), data: due(2900) };
    expect(paymentDue.parse(old).data.amountCents).toBe('2900');
    const license = {
      licenseId: 'lic_1',
      boxId: 'box_1',
      claimId: 'claim_1',
      identityName: 'Ada',
      tier: 'creator' as const,
      status: 'active' as const,
      licenseePlatformId: 'plat_payer',
      licenseePlatformName: 'Payer',
      boxOwnerPlatformId: 'plat_owner',
      monthlyFeeCents: 999,
      royaltyRate: 0.15,
      currency: 'USD',
      validFrom: '2026-11-01T00:00:00.000Z',
      expiresAt: '2027-11-01T00:00:00.000Z',
      autoRenew: false,
    };
    const envelope = overTheWire(
      licenseActivated.create({ ...license, monthlyFeeCents: '0' }, meta),
    ) as object;
    expect(licenseActivated.parse({ ...envelope, data: license }).data.monthlyFeeCents).toBe('999');
  });

  it('when an old event carries a number past 2^53, then the consumer refuses it rather than take a rounded amount', () => {
    const envelope = overTheWire(paymentDue.create(due(0n), meta)) as object;
    expect(() => paymentDue.parse({ ...envelope, data: due(2 ** 53 + 2) })).toThrow(/may be rounded/);
  });
});
