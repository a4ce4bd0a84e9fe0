import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineEvent } from '@svc/contracts/common';
import { createLogger } from '@svc/logger';
import { appendToOutbox, InProcessMessageBus, messagingMigrations } from '@svc/messaging';
import { signInternalToken } from '@svc/service-kit';
import { createDatabase } from '@svc/storage';
import { z } from 'zod';
import { embeddedService, startDomainService } from '../../src';

const SECRET = 'runtime-test-secret-0123456789-abcdef';
const pinged = defineEvent('runtime.thing.pinged', 1, z.object({ n: z.number() }));
const silent = createLogger('runtime-test', { level: 'silent' });
const token = signInternalToken(SECRET, {
  platformId: 'plat_t',
  environment: 'sandbox',
  keyId: 'key_t',
  plan: 'basic',
});

function config() {
  return { PORT: 0, HOST: '127.0.0.1', DATABASE_URL: 'unused', INTERNAL_JWT_SECRET: SECRET };
}

describe('startDomainService', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'runtime-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a route writes an event to the outbox, then the relay delivers it to the subscribed consumer', async () => {
    const db = await createDatabase({ url: 'pglite://memory' });
    const bus = new InProcessMessageBus({ logger: silent });
    const received: number[] = [];
    const order: string[] = [];
    const running = await startDomainService({
      name: 'runtime-test',
      config: config(),
      overrides: { db, bus, logger: silent },
      migrations: [messagingMigrations],
      wire: ({ db: wiredDb, clock, kickRelay }) => ({
        subscriptions: [
          {
            queue: 'runtime-test.pings',
            patterns: ['runtime.thing.*'],
            handler: async (envelope) => {
              received.push((envelope.data as { n: number }).n);
            },
          },
        ],
        background: [
          {
            name: 'job',
            start: () => order.push('job started'),
            stop: async () => void order.push('job stopped'),
          },
        ],
        routes: (router) => {
          router.post('/ping', async (_req, res) => {
            await wiredDb.transaction((tx) =>
              appendToOutbox(tx, pinged.create({ n: 7 }, { occurredAt: clock.now() })),
            );
            kickRelay();
            res.status(202).json({ data: { ok: true } });
          });
        },
      }),
    });
    try {
      expect(order).toEqual(['job started']);
      const res = await fetch(`${running.url}/ping`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(202);
      const deadline = performance.now() + 5000;
      while (received.length === 0 && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(received).toEqual([7]);
      expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${running.url}/ping`, { method: 'POST' })).status).toBe(401);
    } finally {
      await running.stop();
      await bus.close();
      await db.close();
    }
    expect(order).toEqual(['job started', 'job stopped']);
  });

  it('when the database is not given and no AMQP_URL is set, then start fails and closes what it opened', async () => {
    await expect(
      startDomainService({
        name: 'runtime-test',
        config: { ...config(), DATABASE_URL: 'pglite://memory' },
        overrides: { logger: silent },
        migrations: [],
        wire: () => ({ routes: () => undefined }),
      }),
    ).rejects.toThrow(/AMQP_URL is required/);
  });

  it('when an embedded service starts, then it gets its own PGlite files under the data directory', async () => {
    const bus = new InProcessMessageBus({ logger: silent });
    const service = embeddedService({
      name: 'thing',
      urlVariable: 'THING_URL',
      start: (_deps, db) =>
        startDomainService({
          name: 'thing',
          config: config(),
          overrides: { db, bus, logger: silent },
          migrations: [],
          wire: () => ({ routes: (router) => router.get('/x', (_req, res) => void res.json({ ok: true })) }),
        }),
    });
    const running = await service.start({
      dataDir: dir,
      bus,
      logger: silent,
      environment: 'sandbox',
      internalJwtSecret: SECRET,
      allowPrivateFetch: true,
      serviceUrls: {},
    });
    try {
      const res = await fetch(`${running.url}/x`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(service.urlVariable).toBe('THING_URL');
    } finally {
      await running.stop();
      await bus.close();
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(path.join(dir, 'thing'))).toBe(true);
  });
});
