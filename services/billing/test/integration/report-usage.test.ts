import { paymentDue, usageReported } from '@svc/contracts/billing';
import { licenseRevoked } from '@svc/contracts/licensing';
import {
  licenseData,
  startBillingHarness,
  type BillingHarness,
  type Client,
} from '../fixtures/billing-harness';

let h: BillingHarness;
let licensee: Client;
let owner: Client;

beforeAll(async () => {
  h = await startBillingHarness();
  licensee = h.platform();
  owner = h.platform();
});
afterAll(() => h.stop());

const body = (overrides: Record<string, unknown> = {}) => ({
  period: '2026-10',
  metrics: { subscribers: 1200, messages: 45000, tips: 80, adImpressions: 0 },
  revenue: { subscriptions: 20, messages: 10.33, tips: 3, ads: 0 },
  ...overrides,
});

describe('POST /v1/svc/licenses/:id/usage', () => {
  it('when the licensee reports a period, then 201 with the royalty rounded half-up, due on the 15th, and both events in the outbox', async () => {
    const license = await h.activeLicense(licensee, owner);
    const reply = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body());
    expect(reply.status).toBe(201);
    expect(reply.body.data).toEqual({
      id: expect.stringMatching(/^usage_/),
      licenseId: license.licenseId,
      period: '2026-10',
      version: 1,
      totalRevenue: 33.33,
      royaltyRate: 0.15,
      royaltyDue: 5,
      paymentStatus: 'pending',
      dueDate: '2026-11-15T00:00:00.000Z',
    });

    const outbox = await h.outbox();
    const reported = outbox.filter(
      (e) => e.type === usageReported.type && e.data.licenseId === license.licenseId,
    );
    expect(reported).toHaveLength(1);
    expect(usageReported.parse(reported[0]).data).toMatchObject({
      reportId: reply.body.data.id,
      boxId: license.boxId,
      licenseePlatformId: licensee.platformId,
      licenseePlatformName: 'Avatar Co',
      boxOwnerPlatformId: owner.platformId,
      period: '2026-10',
      version: 1,
      users: 1200,
      revenueCents: { subscriptions: '2000', messages: '1033', tips: '300', ads: '0', other: '0' },
      totalRevenueCents: '3333',
      royaltyDueCents: '500',
      currency: 'USD',
      dueDate: '2026-11-15T00:00:00.000Z',
    });
    expect(reported[0]?.platformId).toBe(licensee.platformId);
    const due = outbox.filter((e) => e.type === paymentDue.type && e.data.licenseId === license.licenseId);
    expect(due).toHaveLength(1);
    expect(paymentDue.parse(due[0]).data).toMatchObject({
      amountCents: '500',
      currency: 'USD',
      recipient: owner.platformId,
      payerPlatformId: licensee.platformId,
      period: '2026-10',
      dueDate: '2026-11-15T00:00:00.000Z',
    });
    // The relay delivers them.
    await h.waitForEvent(paymentDue.type, (e) => e.data.licenseId === license.licenseId);
  });

  it('when the same period is reported again, then 200 version 2 replaces it and the ledger keeps both entries', async () => {
    const license = await h.activeLicense(licensee, owner);
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    expect((await licensee.call('POST', path, body())).status).toBe(201);
    const corrected = await licensee.call('POST', path, body({ revenue: { subscriptions: 100 } }));
    expect(corrected.status).toBe(200);
    expect(corrected.body.data).toMatchObject({ version: 2, totalRevenue: 100, royaltyDue: 15 });

    const { rows: reports } = await h.running.db.query<{ version: number; superseded: boolean }>(
      'SELECT version, superseded_at IS NOT NULL AS superseded FROM usage_reports WHERE license_id = $1 ORDER BY version',
      [license.licenseId],
    );
    expect(reports).toEqual([
      { version: 1, superseded: true },
      { version: 2, superseded: false },
    ]);
    const { rows: entries } = await h.running.db.query<{ kind: string; amount: string }>(
      'SELECT kind, amount_cents::text AS amount FROM ledger_entries WHERE license_id = $1 ORDER BY seq',
      [license.licenseId],
    );
    expect(entries).toEqual([
      { kind: 'accrual', amount: '500' },
      { kind: 'adjustment', amount: '1000' },
    ]);
    const versions = (await h.outbox())
      .filter((e) => e.type === usageReported.type && e.data.licenseId === license.licenseId)
      .map((e) => [e.data.version, e.data.royaltyDueCents]);
    expect(versions).toEqual([
      [1, '500'],
      [2, '1500'],
    ]);
  });

  it('when a correction lowers the revenue to zero, then the adjustment is negative and the last payment.due says 0', async () => {
    const license = await h.activeLicense(licensee, owner);
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    await licensee.call('POST', path, body());
    const zero = await licensee.call('POST', path, body({ revenue: {} }));
    expect(zero.status).toBe(200);
    expect(zero.body.data).toMatchObject({ version: 2, totalRevenue: 0, royaltyDue: 0 });
    const { rows } = await h.running.db.query<{ sum: string }>(
      'SELECT SUM(amount_cents)::text AS sum FROM ledger_entries WHERE license_id = $1',
      [license.licenseId],
    );
    expect(rows[0]?.sum).toBe('0');
    const dues = (await h.outbox()).filter(
      (e) => e.type === paymentDue.type && e.data.licenseId === license.licenseId,
    );
    // Every version announces the period's current royalty, so the last notice is always true.
    expect(dues.map((e) => [e.data.version, e.data.kind, e.data.amountCents])).toEqual([
      [1, 'royalty', expect.any(String)],
      [2, 'royalty', '0'],
    ]);
  });

  it('when a counter is fractional (metrics.subscribers 1.5), then 400: counters are whole numbers', async () => {
    const license = await h.activeLicense(licensee, owner);
    const res = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, {
      period: '2026-10',
      metrics: { subscribers: 1.5 },
      revenue: { tips: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(
      'metrics.subscribers',
    );
  });

  it('when the body is malformed, then 400 VALIDATION_ERROR names each bad field', async () => {
    const license = await h.activeLicense(licensee, owner);
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    const bad = await licensee.call('POST', path, {
      period: '2026-13',
      metrics: { subscribers: -1 },
      revenue: { tips: 'ten' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const fields = bad.body.error.details.fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['period', 'metrics.subscribers', 'revenue.tips']));

    const missing = await licensee.call('POST', path, { period: '2026-10' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(
      expect.arrayContaining(['metrics', 'revenue']),
    );

    const thirdDecimal = await licensee.call('POST', path, body({ revenue: { tips: 1.005 } }));
    expect(thirdDecimal.status).toBe(400);
    expect(thirdDecimal.body.error.details.fields).toEqual([
      { field: 'revenue.tips', message: 'at most 2 decimals (cents)' },
    ]);
  });

  it('when the period is in the future or before the license began, then 400 VALIDATION_ERROR on period', async () => {
    const license = await h.activeLicense(licensee, owner);
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    for (const period of ['2026-12', '2026-08']) {
      const reply = await licensee.call('POST', path, body({ period }));
      expect(reply.status).toBe(400);
      expect(reply.body.error.details.fields[0].field).toBe('period');
    }
  });

  it('when the license was revoked, then earlier periods can still be reported and later ones are 409 INVALID_STATE', async () => {
    const data = licenseData(licensee.platformId, owner.platformId);
    await h.activeLicense(licensee, owner, { licenseId: data.licenseId });
    await h.publish(
      licenseRevoked.create(
        { ...data, status: 'revoked', reason: 'terms broken' },
        { occurredAt: new Date('2026-11-01T00:00:00Z'), platformId: licensee.platformId },
      ),
    );
    const path = `/v1/svc/licenses/${data.licenseId}/usage`;
    expect((await licensee.call('POST', path, body({ period: '2026-10' }))).status).toBe(201);
    const after = await licensee.call('POST', path, body({ period: '2026-11' }));
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('INVALID_STATE');
  });

  it('when the license is unknown or another platform reports on it, then 404 NOT_FOUND and nothing is written', async () => {
    const license = await h.activeLicense(licensee, owner);
    const intruder = h.platform();
    const before = (await h.outbox()).length;
    const stolen = await intruder.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body());
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe('NOT_FOUND');
    // Even the box owner is not the licensee.
    expect((await owner.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body())).status).toBe(
      404,
    );
    expect(
      (await licensee.call('POST', '/v1/svc/licenses/lic_doesnotexist0000000/usage', body())).status,
    ).toBe(404);
    expect((await h.outbox()).length).toBe(before);
  });

  it('when no internal token is sent, then 401', async () => {
    const reply = await h.raw('POST', '/v1/svc/licenses/lic_x/usage');
    expect(reply.status).toBe(401);
  });
});

describe('concurrent reports of one period', () => {
  it('when five reports of the same period race, then they take turns: versions 1 to 5, one 201, and the ledger sums to the last', async () => {
    const license = await h.activeLicense(licensee, owner);
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    const replies = await Promise.all(
      [10, 20, 30, 40, 50].map((amount) =>
        licensee.call('POST', path, { period: '2026-11', metrics: {}, revenue: { tips: amount } }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(replies.map((r) => r.body.data.version).sort()).toEqual([1, 2, 3, 4, 5]);
    const last = replies.find((r) => r.body.data.version === 5);
    const { rows } = await h.running.db.query<{ sum: string; n: string }>(
      'SELECT SUM(amount_cents)::text AS sum, COUNT(*)::text AS n FROM ledger_entries WHERE license_id = $1',
      [license.licenseId],
    );
    expect(rows[0]).toEqual({ sum: String(Math.round(last?.body.data.royaltyDue * 100)), n: '5' });
  });
});
