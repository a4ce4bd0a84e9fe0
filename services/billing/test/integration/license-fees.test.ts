import { paymentDue } from '@svc/contracts/billing';
import type { EventEnvelope } from '@svc/contracts/common';
import { clockAdvanced } from '@svc/contracts/enforcement';
import { licenseCancelled, licenseRenewed } from '@svc/contracts/licensing';
import { startBillingHarness, type BillingHarness, type LicenseData } from '../fixtures/billing-harness';

// Issue #15: a license's monthly fee is billed per calendar month from validFrom, prorated, in the
// same ledger as royalties, with payment.due (kind fee). The harness clock stands at 2026-11-22.

let h: BillingHarness;
beforeAll(async () => {
  h = await startBillingHarness();
});
afterAll(() => h.stop());

async function feeNotices(licenseId: string): Promise<[string, number, number][]> {
  return (await h.outbox())
    .filter((e) => e.type === paymentDue.type && e.data.licenseId === licenseId && e.data.kind === 'fee')
    .map((e) => [String(e.data.period), Number(e.data.version), Number(e.data.amountCents)]);
}

async function feeLedger(licenseId: string): Promise<[string, string, string][]> {
  const { rows } = await h.running.db.query<{ period: string; kind: string; amount: string }>(
    `SELECT period, kind, amount_cents::text AS amount FROM ledger_entries
     WHERE license_id = $1 AND charge = 'fee' ORDER BY seq`,
    [licenseId],
  );
  return rows.map((r) => [r.period, r.kind, r.amount]);
}

function ended(
  data: LicenseData,
  effectiveAt: string,
  effectiveDate: 'immediate' | 'end_of_billing_period',
): EventEnvelope {
  return licenseCancelled.create(
    { ...data, status: 'cancelled', reason: null, effectiveDate, effectiveAt },
    { occurredAt: new Date(effectiveAt), platformId: data.licenseePlatformId },
  );
}

describe('license fees', () => {
  it('when a license with a fee is active, then each period from validFrom accrues its prorated fee, payable by the licensee and receivable by the owner', async () => {
    const licensee = h.platform();
    const owner = h.platform();
    const license = await h.activeLicense(licensee, owner, { monthlyFeeCents: 2900 });
    // September from the 10th: 21 of 30 days of 29.00 = 20.30; October and November whole.
    expect(await feeLedger(license.licenseId)).toEqual([
      ['2026-09', 'accrual', '2030'],
      ['2026-10', 'accrual', '2900'],
      ['2026-11', 'accrual', '2900'],
    ]);
    const notice = (await h.outbox()).find(
      (e) =>
        e.type === paymentDue.type && e.data.licenseId === license.licenseId && e.data.period === '2026-09',
    );
    expect(notice?.data).toMatchObject({
      kind: 'fee',
      amountCents: '2030',
      recipient: owner.platformId,
      payerPlatformId: licensee.platformId,
      period: '2026-09',
      dueDate: '2026-10-15T00:00:00.000Z',
    });
    const payer = await licensee.call('GET', '/revenue/balance');
    expect(payer.body).toMatchObject({
      balance: 78.3,
      fee_basis: 'prorated_calendar_month',
      breakdown: { fees: { balance: 78.3, receivable: 0 }, royalties: { balance: 0 } },
    });
    expect(payer.body.pending_payouts[0]).toMatchObject({ kind: 'fee', period: '2026-09', amount: 20.3 });
    const payee = await owner.call('GET', '/revenue/balance');
    expect(payee.body).toMatchObject({
      balance: 0,
      receivable: 78.3,
      breakdown: { fees: { receivable: 78.3 } },
    });
  });

  it('when the monthly fee is past 2^53 cents, then the ledger and payment.due carry it to the cent', async () => {
    // 12345678901234567 cents is odd: no double holds it, so a number anywhere on the way would show (ADR 0039).
    const license = await h.activeLicense(h.platform(), h.platform(), {
      monthlyFeeCents: '12345678901234567',
      validFrom: '2026-11-01T00:00:00.000Z',
    });
    expect(await feeLedger(license.licenseId)).toEqual([['2026-11', 'accrual', '12345678901234567']]);
    const notice = (await h.outbox()).find(
      (e) => e.type === paymentDue.type && e.data.licenseId === license.licenseId,
    );
    expect(paymentDue.parse(notice).data.amountCents).toBe('12345678901234567');
  });

  it('when a new billing period begins, then the fee job bills it once', async () => {
    const licensee = h.platform();
    const license = await h.activeLicense(licensee, h.platform(), {
      monthlyFeeCents: 1000,
      validFrom: '2026-11-01T00:00:00.000Z',
    });
    expect(await feeNotices(license.licenseId)).toEqual([['2026-11', 1, 1000]]);
    h.clock.set('2026-12-02T00:00:00.000Z');
    await h.running.accrueFees();
    await h.running.accrueFees();
    expect(await feeNotices(license.licenseId)).toEqual([
      ['2026-11', 1, 1000],
      ['2026-12', 1, 1000],
    ]);
  });

  it('when a license is cancelled at the end of the billing period, then it is billed to that end and not after', async () => {
    const licensee = h.platform();
    const license = await h.activeLicense(licensee, h.platform(), {
      monthlyFeeCents: 1000,
      validFrom: '2026-11-01T00:00:00.000Z',
    });
    await h.publish(ended(license, '2027-01-01T00:00:00.000Z', 'end_of_billing_period'));
    h.clock.set('2027-02-03T00:00:00.000Z');
    await h.running.accrueFees();
    const periods = (await feeNotices(license.licenseId)).map(([period]) => period);
    expect(periods).not.toContain('2027-01');
    expect(periods).not.toContain('2027-02');
    expect(await feeLedger(license.licenseId)).toContainEqual(['2026-12', 'accrual', '1000']);
  });

  it('when a license is cancelled mid-period, then the period is corrected to the days it was active (an adjustment, kept)', async () => {
    const licensee = h.platform();
    const license = await h.activeLicense(licensee, h.platform(), {
      monthlyFeeCents: 2900,
      validFrom: '2027-01-01T00:00:00.000Z',
    });
    // The clock stands in February 2027 here: January and February are billed.
    await h.publish(ended(license, '2027-02-15T00:00:00.000Z', 'immediate'));
    // February 2027 has 28 days: 14 of them of 29.00 = 14.50.
    expect(await feeLedger(license.licenseId)).toEqual([
      ['2027-01', 'accrual', '2900'],
      ['2027-02', 'accrual', '2900'],
      ['2027-02', 'adjustment', '-1450'],
    ]);
    expect((await feeNotices(license.licenseId)).at(-1)).toEqual(['2027-02', 2, 1450]);
  });

  it('when a renewal raises the price, then the periods billed keep their price and later ones take the new one', async () => {
    const licensee = h.platform();
    const license = await h.activeLicense(licensee, h.platform(), {
      monthlyFeeCents: 1000,
      validFrom: '2027-02-01T00:00:00.000Z',
      expiresAt: '2027-03-01T00:00:00.000Z',
    });
    await h.publish(
      licenseRenewed.create(
        {
          ...license,
          monthlyFeeCents: 1500,
          expiresAt: '2027-04-01T00:00:00.000Z',
          previousExpiry: '2027-03-01T00:00:00.000Z',
          newExpiry: '2027-04-01T00:00:00.000Z',
        },
        { occurredAt: new Date('2027-02-10T00:00:00Z'), platformId: licensee.platformId },
      ),
    );
    h.clock.set('2027-03-05T00:00:00.000Z');
    await h.running.accrueFees();
    expect(await feeNotices(license.licenseId)).toEqual([
      ['2027-02', 1, 1000],
      ['2027-03', 1, 1500],
    ]);
  });
});

describe('one clock per platform (enforcement.clock.advanced)', () => {
  it('when the licensee advanced its sandbox clock, then a period in its new present is reported, and others still may not', async () => {
    const licensee = h.platform();
    const other = h.platform();
    const now = h.clock.now();
    const license = await h.activeLicense(licensee, h.platform(), { validFrom: now.toISOString() });
    const otherLicense = await h.activeLicense(other, h.platform(), { validFrom: now.toISOString() });
    const later = new Date(now.getTime() + 40 * 86_400_000);
    const period = later.toISOString().slice(0, 7);
    const before = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, {
      period,
      metrics: {},
      revenue: { tips: 10 },
    });
    expect(before.status).toBe(400);
    await h.publish(
      clockAdvanced.create(
        { platformId: licensee.platformId, now: later.toISOString(), advancedBySeconds: 40 * 86_400 },
        { occurredAt: later, platformId: licensee.platformId },
      ),
    );
    const after = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, {
      period,
      metrics: {},
      revenue: { tips: 10 },
    });
    expect(after.status).toBe(201);
    const others = await other.call('POST', `/v1/svc/licenses/${otherLicense.licenseId}/usage`, {
      period,
      metrics: {},
      revenue: { tips: 10 },
    });
    expect(others.status).toBe(400);
  });

  it('when the licensee advanced its clock into a new period, then that period’s fee is billed at once', async () => {
    const licensee = h.platform();
    const now = h.clock.now();
    const license = await h.activeLicense(licensee, h.platform(), {
      monthlyFeeCents: 3100,
      validFrom: now.toISOString(),
    });
    const later = new Date(now.getTime() + 35 * 86_400_000);
    const envelope = clockAdvanced.create(
      { platformId: licensee.platformId, now: later.toISOString(), advancedBySeconds: 35 * 86_400 },
      { occurredAt: later, platformId: licensee.platformId },
    );
    await h.publish(envelope);
    await h.publish(envelope); // a redelivery moves nothing twice
    const periods = (await feeNotices(license.licenseId)).map(([period]) => period);
    expect(periods).toContain(later.toISOString().slice(0, 7));
    const { rows } = await h.running.db.query<{ offset_ms: string }>(
      'SELECT offset_ms::text AS offset_ms FROM sandbox_clocks WHERE platform_id = $1',
      [licensee.platformId],
    );
    expect(rows[0]?.offset_ms).toBe(String(35 * 86_400_000));
  });
});
