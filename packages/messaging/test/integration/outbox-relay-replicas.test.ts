import { Registry } from 'prom-client';
import { isTransientFailure } from '@svc/errors';
import { appendToOutbox, InProcessMessageBus, messagingMigrations, OutboxRelay } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase, startBlackholeProxy, waitFor, type BlackholeProxy } from '@svc/test-kit';
import { anEvent, testLogger } from '../event-builder';

// The outbox relays of two replicas when one is cut off from its database in the middle of a
// batch (issue #34, "Singletons that are not"); two relays at once, and a relay killed mid-batch,
// are in outbox.test.ts. A pass holds its rows FOR UPDATE SKIP LOCKED in a transaction until they
// are marked sent, so the other relay skips them. Cut off, the relay's session stays open on the
// server (a quiet connection, not a dead one) until idle_in_transaction_session_timeout ends it
// (30 s in production, 1 s here); then the other relay publishes the rows, and the cut-off one's
// mark can never land. What it had published before the cut goes out again: at least once, the
// consumers' inbox applies it once.

let database: { url: string; drop(): Promise<void> };
let direct: Database;
let proxy: BlackholeProxy;
let cutOff: Database;
const logger = testLogger();
const bus = new InProcessMessageBus({ logger });
/** Every delivery of the test's events, by id. */
const delivered: string[] = [];

beforeAll(async () => {
  database = await freshPostgresDatabase('outbox_relay_replicas');
  direct = await createDatabase({ url: database.url });
  await runMigrations(direct, [messagingMigrations]);
  const target = new URL(database.url);
  proxy = await startBlackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(database.url);
  proxied.port = String(proxy.port);
  cutOff = await createDatabase({
    url: proxied.toString(),
    maxConnections: 2,
    queryTimeoutMs: 1000,
    idleInTransactionTimeoutMs: 1000,
  });
  await bus.subscribe({
    queue: 'test.relay-replicas',
    patterns: ['reg.box.relayed'],
    handler: async (envelope) => void delivered.push(envelope.id),
  });
});
afterAll(async () => {
  proxy.heal();
  await cutOff.close().catch(() => undefined);
  await proxy.close();
  await direct.close();
  await bus.close();
  await database.drop();
});

async function unpublished(): Promise<number> {
  const { rows } = await direct.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
  );
  return rows[0]?.n ?? -1;
}

describe('outbox relays of two replicas, one cut off from the database', () => {
  it('when a relay is cut off from its database in the middle of a batch, then the other publishes every row, its rows once their session is ended, and each event reaches the consumer', async () => {
    const events = Array.from({ length: 40 }, (_, i) => anEvent('reg.box.relayed', { i }));
    await direct.transaction((tx) => appendToOutbox(tx, ...events));
    let cut = false;
    const a = new OutboxRelay({
      db: cutOff,
      bus,
      logger,
      registry: new Registry(),
      batchSize: 10,
      hooks: {
        // The link goes silent once the relay holds its batch and has published its first row.
        afterPublish: () => {
          if (!cut) proxy.blackhole();
          cut = true;
        },
      },
    });
    const b = new OutboxRelay({ db: direct, bus, logger, registry: new Registry(), batchSize: 10 });
    const aPass = a.publishPending().catch((err: unknown) => err);
    await waitFor(() => cut, { what: 'the link cut under the first relay' });
    const started = performance.now();
    // The other relay publishes what the cut-off one does not hold at once, its rows once the
    // server ends its session.
    let published = 0;
    while ((await unpublished()) > 0 && performance.now() - started < 10_000) {
      const pass = await b.publishPending();
      published += pass;
      if (pass === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const waited = performance.now() - started;
    expect(await unpublished()).toBe(0);
    expect(published).toBe(40);
    expect(waited).toBeGreaterThan(500);
    expect(waited).toBeLessThan(5000);
    // The cut-off relay's mark never lands: its pass failed, as a transient failure.
    const outcome = await aPass;
    expect(isTransientFailure(outcome)).toBe(true);
    // Every event reached the consumer; those the cut-off relay had published before, twice.
    const ids = events.map((e) => e.id);
    expect(new Set(delivered)).toEqual(new Set(ids));
    expect(delivered.length).toBeLessThanOrEqual(40 + 10);
  });
});
