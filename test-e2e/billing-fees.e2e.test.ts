import { feeCentsOfPeriod, feePeriodOf } from '@svc/contracts/common';
import { licenseActivated } from '@svc/contracts/licensing';
import { connectTestBroker, startTestCluster, waitFor, type TestCluster } from '@svc/test-kit';
import { unwrap, type ResponseBody, type SvcClient } from '@svc/sdk';
import { expectStatus, refusal, ROOT } from './helpers';
import { activeLicense, boxedIdentity, newPlatform, termsWhen, webhookReceiver } from './licensing-fixtures';

// Issue #15 through the gateway in cluster mode: registry, licensing, billing, enforcement (the
// sandbox clock) and the webhook dispatcher as processes on PostgreSQL and RabbitMQ. A license's
// fee accrues per calendar month on the licensee's clock, in the ledger of royalties; every
// correction announces the period's current amount; counters are whole numbers; one clock. Calls go
// through @svc/sdk, the typed client generated from the OpenAPI document.
let cluster: TestCluster;
let hooks: Awaited<ReturnType<typeof webhookReceiver>>;

beforeAll(async () => {
  hooks = await webhookReceiver();
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'licensing', 'billing', 'enforcement', 'webhook-dispatcher'],
    env: { SVC_ALLOW_PRIVATE_FETCH: 'true' },
    output: 'silent',
  });
}, 90_000);

afterAll(async () => {
  await cluster?.teardown();
  await hooks?.close();
});

/** The period `months` after the one `instant` falls in. */
function periodAfter(instant: Date, months: number): string {
  return feePeriodOf(new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth() + months, 1)));
}

/** Moves the platform's sandbox clock to the 15th of the month `months` after now. */
function advanceToMonth(client: SvcClient, months: number) {
  const now = new Date();
  const target = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 15);
  return client.POST('/v1/svc/test-helpers/advance-time', {
    body: { seconds: Math.ceil((target - now.getTime()) / 1000) },
  });
}

/** payment.due webhook bodies of one license and kind. */
function paymentNotices(licenseId: string, kind: 'fee' | 'royalty') {
  return hooks.bodies.filter(
    (b) => b.event === 'payment.due' && b.data.license_id === licenseId && b.data.kind === kind,
  );
}

type Balance = ResponseBody<'/revenue/balance', 'get'>;

/** The balance once `ready` holds (billing learns licenses and clocks from events). */
function balanceWhen(client: SvcClient, ready: (body: Balance) => boolean, what: string): Promise<Balance> {
  return waitFor(
    async () => {
      const res = await client.GET('/revenue/balance');
      return res.response.status === 200 && res.data !== undefined && ready(res.data) ? res.data : undefined;
    },
    { what, timeoutMs: 20_000 },
  );
}

/** Waits until billing's projection knows the license: a future period is refused (400), not 404. */
async function billingKnows(client: SvcClient, licenseId: string): Promise<void> {
  await waitFor(
    async () =>
      (
        await client.POST('/v1/svc/licenses/{id}/usage', {
          params: { path: { id: licenseId } },
          body: { period: '2099-01', metrics: {}, revenue: {} },
        })
      ).response.status === 400 || undefined,
    { what: 'the license in billing', timeoutMs: 20_000 },
  );
}

describe('license fees through the gateway (cluster mode)', () => {
  it('when a license is active and the clock moves, then each month accrues its fee to the owner, with payment.due (kind fee), in the balance, the detail and the box statistics; a cancellation at the end of the period stops it there', async () => {
    const owner = await newPlatform(cluster, 'Owner');
    const licensee = await newPlatform(cluster, 'Licensee');
    await expectStatus(
      201,
      licensee.api.POST('/v1/svc/webhooks', { body: { url: hooks.url, events: ['payment.due'] } }),
    );
    const box = await boxedIdentity(owner.api, 'LICENSE', {
      licenseTypes: { personal: { price: 30, autoApprove: true }, creator: { price: 50, autoApprove: true } },
    });
    await termsWhen(licensee.api, box.claimId);
    const licenseId = await activeLicense(licensee.api, box.boxId, 'personal', 12);
    // A second license, cancelled at the end of this billing period: billed to that end, not after.
    const endingId = await activeLicense(licensee.api, box.boxId, 'creator', 12);
    const byEnding = { params: { path: { id: endingId } } };
    const { data: cancel } = await expectStatus(
      200,
      licensee.api.DELETE('/v1/svc/licenses/{id}', {
        ...byEnding,
        body: { effectiveDate: 'end_of_billing_period' },
      }),
    );
    expect(cancel).toMatchObject({ status: 'active', effectiveDate: 'end_of_billing_period' });
    const endingFrom = new Date(
      (await unwrap(licensee.api.GET('/v1/svc/licenses/{id}', byEnding))).data.validFrom,
    );
    const endingCents = Number(
      feeCentsOfPeriod(5000, endingFrom, new Date(cancel.cancelsAt!), feePeriodOf(endingFrom)),
    );

    const { data: detail } = await unwrap(
      licensee.api.GET('/v1/svc/licenses/{id}', { params: { path: { id: licenseId } } }),
    );
    const validFrom = new Date(detail.validFrom);
    const expiresAt = new Date(detail.expiresAt);
    const p0 = feePeriodOf(validFrom);
    const p1 = periodAfter(validFrom, 1);
    const p2 = periodAfter(validFrom, 2);
    // The first month is prorated from validFrom (docs/adr/0012-license-fees.md), half-up to a cent.
    const firstCents = Number(feeCentsOfPeriod(3000, validFrom, expiresAt, p0));
    expect(detail.fees).toEqual({
      basis: 'prorated_calendar_month',
      currentPeriod: p0,
      currentPeriodFee: firstCents / 100,
    });

    const first = await balanceWhen(
      licensee.api,
      (b) => b.breakdown?.fees.balance === (firstCents + endingCents) / 100,
      'the first month billed',
    );
    expect(first).toMatchObject({
      balance: (firstCents + endingCents) / 100,
      fee_basis: 'prorated_calendar_month',
    });
    expect(first.pending_payouts.map((p) => [p.license_id, p.kind, p.period, p.recipient]).sort()).toEqual(
      [
        [licenseId, 'fee', p0, owner.id],
        [endingId, 'fee', p0, owner.id],
      ].sort(),
    );

    // Two months later on the licensee's clock: billing follows the platform's sandbox clock.
    await expectStatus(200, advanceToMonth(licensee.api, 2));
    const totalCents = firstCents + 3000 + 3000 + endingCents;
    const later = await balanceWhen(
      licensee.api,
      (b) =>
        b.breakdown?.fees.balance === totalCents / 100 &&
        !b.pending_payouts.some((p) => p.license_id === endingId && p.period !== p0),
      'two more months billed, and none after the cancellation',
    );
    expect(
      later.pending_payouts.filter((p) => p.license_id === endingId).map((p) => [p.period, p.amount]),
    ).toEqual([[p0, endingCents / 100]]);
    await waitFor(
      async () =>
        (await unwrap(licensee.api.GET('/v1/svc/licenses/{id}', byEnding))).data.status === 'cancelled' ||
        undefined,
      { what: 'the scheduled cancellation', timeoutMs: 20_000 },
    );
    // A month billed before the cancellation arrived was announced again at its current amount, 0.
    // Webhooks are delivered at least once and not in order: wait for the corrected notice.
    for (const period of [p1, p2]) {
      const notices = () => paymentNotices(endingId, 'fee').filter((b) => b.data.period === period);
      if (notices().length === 0) continue;
      await waitFor(() => (notices().some((b) => b.data.amount === 0) ? true : undefined), {
        what: `the corrected fee notice of ${period}`,
        timeoutMs: 20_000,
      });
    }
    expect(
      later.pending_payouts
        .filter((p) => p.license_id === licenseId)
        .map((p) => [p.kind, p.period, p.amount]),
    ).toEqual([
      ['fee', p0, firstCents / 100],
      ['fee', p1, 30],
      ['fee', p2, 30],
    ]);
    const owed = await unwrap(owner.api.GET('/revenue/balance'));
    expect(owed).toMatchObject({ balance: 0, receivable: totalCents / 100 });
    expect(owed.breakdown.fees.receivable).toBe(totalCents / 100);

    // payment.due with kind fee reaches the licensee's endpoint, one per month billed.
    await waitFor(() => paymentNotices(licenseId, 'fee').length >= 3 || undefined, {
      what: 'three fee notices',
      timeoutMs: 20_000,
    });
    const byPeriod = Object.fromEntries(paymentNotices(licenseId, 'fee').map((b) => [b.data.period, b.data]));
    expect(byPeriod[p2]).toMatchObject({
      kind: 'fee',
      amount: 30,
      currency: 'USD',
      recipient: owner.id,
      box_id: box.boxId,
      period: p2,
    });
    expect(byPeriod[p0].amount).toBe(firstCents / 100);
    // The box's statistics count the fees as revenue (registry's clock is the real one: p0).
    const stats = await waitFor(
      async () => {
        const res = await owner.api.GET('/v1/svc/boxes/{id}/stats', { params: { path: { id: box.boxId } } });
        return res.data?.data.revenue.lifetime === totalCents / 100 ? res.data.data : undefined;
      },
      { what: 'fees in the box statistics', timeoutMs: 20_000 },
    );
    expect(stats.revenue).toMatchObject({
      monthly: (firstCents + endingCents) / 100,
      byType: { fees: (firstCents + endingCents) / 100 },
    });
  }, 120_000);

  it('when usage is corrected 1000 → 400 → 0, then every correction sends the royalty now due (0 included), in both families; fractional counters are refused; the moved clock opens its period', async () => {
    const owner = await newPlatform(cluster, 'Owner');
    const licensee = await newPlatform(cluster, 'Licensee');
    await expectStatus(
      201,
      licensee.api.POST('/v1/svc/webhooks', { body: { url: hooks.url, events: ['payment.due'] } }),
    );
    const box = await boxedIdentity(owner.api, 'MONETIZE', { royaltyRate: 0.15 });
    await termsWhen(licensee.api, box.claimId);
    const licenseId = await activeLicense(licensee.api, box.boxId, 'creator', 12);
    await billingKnows(licensee.api, licenseId);
    const now = new Date();
    const p0 = feePeriodOf(now);
    const p1 = periodAfter(now, 1);
    const p2 = periodAfter(now, 2);
    const byLicense = { params: { path: { id: licenseId } } };
    const first = (period: string, subscriptions: number) =>
      licensee.api.POST('/v1/svc/licenses/{id}/usage', {
        ...byLicense,
        body: { period, metrics: { subscribers: 10 }, revenue: { subscriptions } },
      });
    const second = (period: string, revenue: number, interactions = 100) =>
      licensee.api.POST('/revenue/report', {
        body: {
          license_id: licenseId,
          period,
          metrics: { interactions, unique_users: 10, revenue_generated: revenue },
        },
      });

    // Counters are whole numbers, in both families (the document says integer; the type lets any
    // number through, so the server's refusal is what is tested).
    const fractional = await refusal(
      licensee.api.POST('/v1/svc/licenses/{id}/usage', {
        ...byLicense,
        body: { period: p0, metrics: { subscribers: 1.5 }, revenue: { subscriptions: 1 } },
      }),
    );
    expect([fractional.status, fractional.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(fractional.fields[0]!.field).toBe('metrics.subscribers');
    expect((await second(p0, 1, 1.5)).response.status).toBe(400);

    // First family: 1000 → 400 → 0 in this month.
    expect((await unwrap(first(p0, 1000))).data).toMatchObject({ version: 1, royaltyDue: 150 });
    expect((await unwrap(first(p0, 400))).data).toMatchObject({ version: 2, royaltyDue: 60 });
    const { data: zero } = await expectStatus(200, first(p0, 0));
    expect(zero).toMatchObject({ version: 3, royaltyDue: 0 });

    // A month after the licensee's clock is refused in both families, until the clock moves there.
    expect((await first(p2, 1)).response.status).toBe(400);
    expect((await second(p2, 1)).response.status).toBe(400);
    await expectStatus(200, advanceToMonth(licensee.api, 2));
    const opened = await waitFor(
      async () => {
        const res = await first(p1, 20);
        return res.response.status === 201 ? res.data : undefined;
      },
      { what: 'billing on the moved clock', timeoutMs: 20_000 },
    );
    expect(opened.data).toMatchObject({ period: p1, royaltyDue: 3 });

    // Second family: 1000 → 400 → 0 in the month the moved clock reached.
    const reported = [await second(p2, 1000), await second(p2, 400), await second(p2, 0)];
    expect(reported.map((r) => [r.response.status, r.data?.royalty_due])).toEqual([
      [201, 150],
      [200, 60],
      [200, 0],
    ]);

    // Every version's notice reaches the endpoint, the last one (0) included: the last is true.
    const amounts = (period: string) =>
      paymentNotices(licenseId, 'royalty')
        .filter((b) => b.data.period === period)
        .map((b) => b.data.amount);
    await waitFor(() => (amounts(p0).length === 3 && amounts(p2).length === 3) || undefined, {
      what: 'six royalty notices',
      timeoutMs: 20_000,
    });
    expect(amounts(p0).sort((a, b) => b - a)).toEqual([150, 60, 0]);
    expect(amounts(p2).sort((a, b) => b - a)).toEqual([150, 60, 0]);
    const balance = await unwrap(licensee.api.GET('/revenue/balance'));
    expect(balance).toMatchObject({
      balance: 3,
      breakdown: { fees: { balance: 0 }, royalties: { balance: 3 } },
    });
    expect(balance.pending_payouts).toEqual([
      expect.objectContaining({ kind: 'royalty', period: p1, amount: 3, recipient: owner.id }),
    ]);
  }, 120_000);

  it("when the README's worked example is billed, then the balance is 5.16 + 9.99 + 5.00 = 20.15", async () => {
    // The README's licenses, as licensing announces them (published on the exchange), on
    // 2026-11-22: a personal license at 9.99/month from 16 October (it runs to 1 December, so the
    // example holds whatever day the test runs), and a MONETIZE license at 15%.
    const owner = await newPlatform(cluster, 'Owner');
    const licensee = await newPlatform(cluster, 'Licensee');
    const base = {
      boxId: 'box_readme00000000000000001',
      claimId: 'claim_readme000000000000001',
      identityName: 'Ada Lovelace',
      status: 'active' as const,
      licenseePlatformId: licensee.id,
      licenseePlatformName: 'README Avatars',
      boxOwnerPlatformId: owner.id,
      currency: 'USD',
      autoRenew: false,
    };
    const meta = { occurredAt: new Date('2026-11-22T10:00:00.000Z'), platformId: licensee.id };
    const personal = licenseActivated.create(
      {
        ...base,
        licenseId: `lic_readmefee${licensee.id.slice(-12)}`,
        tier: 'personal',
        monthlyFeeCents: 999,
        royaltyRate: 0,
        validFrom: '2026-10-16T00:00:00.000Z',
        expiresAt: '2026-12-01T00:00:00.000Z',
      },
      meta,
    );
    const monetize = licenseActivated.create(
      {
        ...base,
        licenseId: `lic_readmeroy${licensee.id.slice(-12)}`,
        tier: 'creator',
        monthlyFeeCents: 0,
        royaltyRate: 0.15,
        validFrom: '2026-10-01T00:00:00.000Z',
        expiresAt: '2027-10-01T00:00:00.000Z',
      },
      meta,
    );
    const broker = await connectTestBroker(cluster.amqpUrl);
    try {
      await broker.publish(personal);
      await broker.publish(monetize);
    } finally {
      await broker.close();
    }
    await billingKnows(licensee.api, monetize.data.licenseId);
    const report = await unwrap(
      licensee.api.POST('/v1/svc/licenses/{id}/usage', {
        params: { path: { id: monetize.data.licenseId } },
        body: { period: '2026-10', metrics: { subscribers: 12 }, revenue: { subscriptions: 33.33 } },
      }),
    );
    expect(report.data.royaltyDue).toBe(5);
    const balance = await balanceWhen(licensee.api, (b) => b.balance === 20.15, 'the worked example');
    expect(balance.breakdown).toEqual({
      fees: { balance: 15.15, receivable: 0 },
      royalties: { balance: 5, receivable: 0 },
    });
    expect(balance.pending_payouts.map((p) => [p.period, p.kind, p.amount]).sort()).toEqual([
      ['2026-10', 'fee', 5.16],
      ['2026-10', 'royalty', 5],
      ['2026-11', 'fee', 9.99],
    ]);
    expect((await unwrap(owner.api.GET('/revenue/balance'))).receivable).toBe(20.15);
  }, 60_000);
});
