import { licenseActivated } from '@svc/contracts/licensing';
import { waitFor, startEmbeddedUnderTest } from '@svc/test-kit';
import { billingEmbedded } from '../../src';
import { licenseData } from '../fixtures/billing-harness';

// A whole service on PGlite (PostgreSQL in WebAssembly: about 3 s to start and migrate on a quiet
// machine, several times that when the two cores are shared): more than the default 30 s budget.
jest.setTimeout(90_000);

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

describe('billingEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then a license event, a usage report, its events and the balance work on PGlite', async () => {
    const service = await startEmbeddedUnderTest(billingEmbedded, { prefix: 'billing', jwtSecret: SECRET });
    const { bus, seen, call } = service;
    try {
      const now = new Date();
      const period = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
      const data = licenseData('plat_e', 'plat_owner', {
        validFrom: new Date(now.getTime() - 40 * 86_400_000).toISOString(),
        expiresAt: new Date(now.getTime() + 300 * 86_400_000).toISOString(),
      });
      await bus.publish(licenseActivated.create(data, { occurredAt: new Date(data.validFrom) }));
      const report = await call('POST', `/v1/svc/licenses/${data.licenseId}/usage`, {
        period,
        metrics: { subscribers: 3 },
        revenue: { subscriptions: 33.33 },
      });
      expect(report.status).toBe(201);
      expect(report.body.data.royaltyDue).toBe(5);
      const balance = await call('GET', '/revenue/balance');
      expect(balance.body).toMatchObject({ currency: 'USD', balance: 5 });
      await waitFor(() => seen.includes('billing.payment.due'), { what: 'payment.due' });
      expect(seen).toEqual(['billing.usage.reported', 'billing.payment.due']);
    } finally {
      await service.stop();
    }
  });
});
