import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { signInternalToken } from '@svc/service-kit';
import { waitFor } from '@svc/test-kit';
import { registryEmbedded } from '../../src';
import { claimBody } from '../fixtures/registry-harness';

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

describe('registryEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then claims, boxes, lists and events work on PGlite', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'registry-embedded-'));
    const logger = createLogger('test', { level: 'silent' });
    const bus = new InProcessMessageBus({ logger });
    const seen: string[] = [];
    await bus.subscribe({
      queue: 'test.seen',
      patterns: ['registry.#'],
      handler: async (e) => void seen.push(e.type),
    });
    const running = await registryEmbedded.start({
      dataDir,
      bus,
      logger,
      environment: 'sandbox',
      internalJwtSecret: SECRET,
      allowPrivateFetch: false,
      serviceUrls: {},
    });
    try {
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
      const claim = await call('POST', '/v1/svc/claims', claimBody());
      expect(claim.status).toBe(201);
      expect(
        (await call('POST', `/v1/svc/test-helpers/claims/${claim.body.data.id}/verify`, {})).status,
      ).toBe(200);
      const box = await call('POST', '/v1/svc/boxes', { claimId: claim.body.data.id, policy: 'OPEN' });
      expect(box.status).toBe(201);
      const list = await call('GET', '/v1/svc/boxes');
      expect(list.body.meta.total).toBe(1);
      expect((await call('GET', `/v1/svc/boxes/${box.body.data.id}/stats`)).status).toBe(200);
      await waitFor(() => seen.includes('registry.box.created'), { what: 'box.created' });
      expect(seen).toEqual(['registry.claim.created', 'registry.claim.verified', 'registry.box.created']);
    } finally {
      await running.stop();
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
