import { licenseActivated } from '@svc/contracts/licensing';
import {
  connectTestBroker,
  startTestCluster,
  uniqueSuffix,
  waitFor,
  type TestBroker,
  type TestCluster,
} from '@svc/test-kit';
import pg from 'pg';
import { rateLimitOf, unwrap } from '@svc/sdk';
import { expectStatus, newPlatform, ROOT, sdkFor } from './helpers';

// Billing through the gateway in cluster mode. The license comes from a licensing.license.activated
// envelope published straight onto the exchange, so this test does not depend on the licensing
// service: only the gateway and billing are started. Calls go through @svc/sdk, the typed client
// generated from the OpenAPI document.
let cluster: TestCluster;
let broker: TestBroker;

beforeAll(async () => {
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['billing'],
    output: 'silent',
  });
  broker = await connectTestBroker(cluster.amqpUrl, ['billing.#']);
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await cluster?.teardown();
});

function periodOf(date: Date): string {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

describe('billing through the gateway (cluster mode)', () => {
  it('when a licensee reports usage and corrects it, then royalties accrue, events reach RabbitMQ and the balance adds up', async () => {
    const gw = cluster.gatewayUrl;
    const licensee = await newPlatform(cluster, 'Billing E2E');
    const owner = await newPlatform(cluster, 'Billing E2E');
    const intruder = await newPlatform(cluster, 'Billing E2E');
    const licenseeApi = sdkFor(gw, licensee.key);
    const now = new Date();
    const current = periodOf(now);
    const previous = periodOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)));

    const activated = licenseActivated.create(
      {
        licenseId: `lic_e2e${uniqueSuffix()}0000000000`,
        boxId: 'box_e2e000000000000000001',
        claimId: 'claim_e2e0000000000000001',
        identityName: 'Grace Hopper',
        tier: 'creator',
        status: 'active',
        licenseePlatformId: licensee.platformId,
        licenseePlatformName: 'E2E Avatars',
        boxOwnerPlatformId: owner.platformId,
        monthlyFeeCents: 2900,
        royaltyRate: 0.15,
        currency: 'USD',
        validFrom: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString(),
        expiresAt: new Date(now.getTime() + 365 * 86_400_000).toISOString(),
        autoRenew: false,
      },
      { occurredAt: now, platformId: licensee.platformId },
    );
    const licenseId = activated.data.licenseId;
    await broker.publish(activated);

    // The projection is billing's own table: wait until the consumer applied the event.
    const db = new pg.Client({
      connectionString: `${cluster.postgresUrl.replace(/\/[^/]*$/, '')}/${cluster.databasePrefix}billing`,
    });
    await db.connect();
    try {
      await waitFor(
        async () => ((await db.query('SELECT 1 FROM licenses WHERE id = $1', [licenseId])).rowCount ?? 0) > 0,
        { what: 'license projection', timeoutMs: 10_000 },
      );
    } finally {
      await db.end();
    }

    const byLicense = { params: { path: { id: licenseId } } };
    const first = await licenseeApi.POST('/v1/svc/licenses/{id}/usage', {
      ...byLicense,
      body: {
        period: previous,
        metrics: { subscribers: 120, messages: 4000 },
        revenue: { subscriptions: 33.33 },
      },
    });
    expect((await expectStatus(201, first)).data).toMatchObject({
      licenseId,
      period: previous,
      version: 1,
      royaltyDue: 5,
    });
    expect(rateLimitOf(first.response)?.limit).toEqual(expect.any(Number));

    const { data: corrected } = await expectStatus(
      200,
      licenseeApi.POST('/v1/svc/licenses/{id}/usage', {
        ...byLicense,
        body: {
          period: previous,
          metrics: { subscribers: 130 },
          revenue: { subscriptions: 100, tips: 0.1, ads: 0.2 },
        },
      }),
    );
    expect(corrected).toMatchObject({ version: 2, totalRevenue: 100.3, royaltyDue: 15.05 });

    const second = await expectStatus(
      201,
      licenseeApi.POST('/revenue/report', {
        body: {
          license_id: licenseId,
          period: current,
          metrics: { interactions: 10, unique_users: 5, revenue_generated: 20 },
        },
      }),
    );
    expect(second).toMatchObject({ license_id: licenseId, royalty_due: 3, payment_status: 'pending' });

    // Another platform's key cannot see or report on the license.
    const stolen = await sdkFor(gw, intruder.key).POST('/v1/svc/licenses/{id}/usage', {
      ...byLicense,
      body: { period: current, metrics: {}, revenue: {} },
    });
    expect([stolen.response.status, stolen.error?.error.code]).toEqual([404, 'NOT_FOUND']);

    // The license costs 29.00 a month from the first of the previous month: two whole months of
    // fees (issue #15, docs/adr/0012-license-fees.md) beside the 18.05 of royalties.
    const balance = await expectStatus(200, licenseeApi.GET('/revenue/balance'));
    expect(balance).toMatchObject({
      currency: 'USD',
      balance: 76.05,
      receivable: 0,
      fee_basis: 'prorated_calendar_month',
      breakdown: { fees: { balance: 58, receivable: 0 }, royalties: { balance: 18.05, receivable: 0 } },
    });
    const payouts = balance.pending_payouts;
    expect(payouts.map((p) => [p.kind, p.period, p.amount]).sort()).toEqual(
      [
        ['fee', previous, 29],
        ['fee', current, 29],
        ['royalty', previous, 15.05],
        ['royalty', current, 3],
      ].sort(),
    );
    expect(payouts.every((p) => p.recipient === owner.platformId)).toBe(true);
    const ownerBalance = await unwrap(sdkFor(gw, owner.key).GET('/revenue/balance'));
    expect(ownerBalance).toMatchObject({ balance: 0, receivable: 76.05 });

    // Each accepted report version went out through the outbox: 3 usage.reported, 3 royalty
    // payment.due; and one fee payment.due per billed month.
    const notices = (kind: string) =>
      broker.received.filter(
        (m) =>
          m.routingKey === 'billing.payment.due' &&
          m.body.data.licenseId === licenseId &&
          m.body.data.kind === kind,
      );
    await waitFor(() => (notices('royalty').length === 3 && notices('fee').length === 2) || undefined, {
      what: 'three royalty and two fee payment.due events',
      timeoutMs: 10_000,
    });
    expect(notices('royalty').map((m) => m.body.data.amountCents)).toEqual(['500', '1505', '300']);
    expect(
      notices('fee')
        .map((m) => [m.body.data.period, m.body.data.amountCents])
        .sort(),
    ).toEqual(
      [
        [previous, '2900'],
        [current, '2900'],
      ].sort(),
    );
    const versions = broker.received
      .filter((m) => m.routingKey === 'billing.usage.reported' && m.body.data.licenseId === licenseId)
      .map((m) => [m.body.data.period, m.body.data.version, m.body.data.royaltyDueCents]);
    expect(versions).toEqual([
      [previous, 1, '500'],
      [previous, 2, '1505'],
      [current, 1, '300'],
    ]);
  });
});
