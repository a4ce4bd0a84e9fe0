import { licenseActivated, licenseCancelled, licenseRenewed } from '@svc/contracts/licensing';
import { licenseData, startBillingHarness, type BillingHarness } from '../fixtures/billing-harness';

let h: BillingHarness;

beforeAll(async () => {
  h = await startBillingHarness();
});
afterAll(() => h.stop());

async function row(id: string) {
  const { rows } = await h.running.db.query<{ status: string; royalty_rate: string; ended_at: Date | null }>(
    'SELECT status, royalty_rate, ended_at FROM licenses WHERE id = $1',
    [id],
  );
  return rows[0];
}

describe('license projection (licensing.license.* consumer)', () => {
  it('when an activation is delivered twice, then it is applied once', async () => {
    const licensee = h.platform();
    const data = licenseData(licensee.platformId, 'plat_owner000000000000001', { royaltyRate: 0.125 });
    const event = licenseActivated.create(data, {
      occurredAt: new Date(data.validFrom),
      platformId: licensee.platformId,
    });
    await h.publish(event);
    await h.publish(event);
    expect(await row(data.licenseId)).toMatchObject({ status: 'active', royalty_rate: '0.125' });
    const { rows } = await h.running.db.query<{ n: string }>(
      "SELECT COUNT(*)::text AS n FROM processed_messages WHERE consumer = 'billing.license-projection' AND event_id = $1",
      [event.id],
    );
    expect(rows[0]?.n).toBe('1');
  });

  it('when a renewal changes the rate, then later reports use the new rate', async () => {
    const licensee = h.platform();
    const data = await h.activeLicense(licensee, h.platform());
    await h.publish(
      licenseRenewed.create(
        {
          ...data,
          royaltyRate: 0.2,
          previousExpiry: data.expiresAt,
          newExpiry: '2028-09-10T00:00:00.000Z',
          expiresAt: '2028-09-10T00:00:00.000Z',
        },
        { occurredAt: new Date('2026-11-01T00:00:00Z'), platformId: licensee.platformId },
      ),
    );
    const reply = await licensee.call('POST', `/v1/svc/licenses/${data.licenseId}/usage`, {
      period: '2026-11',
      metrics: {},
      revenue: { subscriptions: 10 },
    });
    expect(reply.body.data).toMatchObject({ royaltyRate: 0.2, royaltyDue: 2 });
  });

  it('when an older event arrives after a newer one, then the newer state stays', async () => {
    const licensee = h.platform();
    const data = licenseData(licensee.platformId, 'plat_owner000000000000002');
    await h.publish(
      licenseCancelled.create(
        {
          ...data,
          status: 'cancelled',
          reason: null,
          effectiveDate: 'immediate',
          effectiveAt: '2026-10-20T00:00:00.000Z',
        },
        { occurredAt: new Date('2026-10-20T00:00:00Z'), platformId: licensee.platformId },
      ),
    );
    await h.publish(
      licenseActivated.create(data, {
        occurredAt: new Date(data.validFrom),
        platformId: licensee.platformId,
      }),
    );
    const stored = await row(data.licenseId);
    expect(stored?.status).toBe('cancelled');
    expect(new Date(stored?.ended_at ?? 0).toISOString()).toBe('2026-10-20T00:00:00.000Z');

    // Cancelled on 20 October: October is reportable, November is not.
    const path = `/v1/svc/licenses/${data.licenseId}/usage`;
    const october = await licensee.call('POST', path, {
      period: '2026-10',
      metrics: {},
      revenue: { tips: 1 },
    });
    expect(october.status).toBe(201);
    const november = await licensee.call('POST', path, {
      period: '2026-11',
      metrics: {},
      revenue: { tips: 1 },
    });
    expect(november.status).toBe(409);
  });

  it('when a license event is not for a license the caller holds, then the license stays invisible to others', async () => {
    const data = await h.activeLicense(h.platform(), h.platform());
    const reply = await h.platform().call('POST', `/v1/svc/licenses/${data.licenseId}/usage`, {
      period: '2026-11',
      metrics: {},
      revenue: {},
    });
    expect(reply.status).toBe(404);
  });
});
