import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { licenseActivated } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { signInternalToken } from '@svc/service-kit';
import { waitFor } from '@svc/test-kit';
import { billingEmbedded } from '../../src';
import { licenseData } from '../fixtures/billing-harness';

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

describe('billingEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then a license event, a usage report, its events and the balance work on PGlite', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'billing-embedded-'));
    const logger = createLogger('test', { level: 'silent' });
    const bus = new InProcessMessageBus({ logger });
    const seen: string[] = [];
    await bus.subscribe({
      queue: 'test.seen',
      patterns: ['billing.#'],
      handler: async (e) => void seen.push(e.type),
    });
    const running = await billingEmbedded.start({
      dataDir,
      bus,
      logger,
      environment: 'sandbox',
      internalJwtSecret: SECRET,
      allowPrivateFetch: false,
      serviceUrls: {},
    });
    try {
      const now = new Date();
      const period = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
      const data = licenseData('plat_e', 'plat_owner', {
        validFrom: new Date(now.getTime() - 40 * 86_400_000).toISOString(),
        expiresAt: new Date(now.getTime() + 300 * 86_400_000).toISOString(),
      });
      await bus.publish(licenseActivated.create(data, { occurredAt: new Date(data.validFrom) }));
      const token = signInternalToken(SECRET, {
        platformId: 'plat_e',
        environment: 'sandbox',
        keyId: 'key_e',
        plan: 'sandbox',
      });
      const call = async (method: string, url: string, body?: unknown) => {
        const res = await fetch(running.url + url, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
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
      await running.stop();
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
