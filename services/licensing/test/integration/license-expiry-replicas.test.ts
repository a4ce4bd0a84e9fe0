import { SandboxClockRepository } from '@svc/clock';
import { newId } from '@svc/ids';
import { appendToOutbox, currentEntityVersion } from '@svc/messaging';
import { createDatabase, type Database, type QueryOptions, type Queryable } from '@svc/storage';
import { startBlackholeProxy, type BlackholeProxy } from '@svc/test-kit';
import { BoxProjectionRepository } from '../../src/data-access/box-projection.repository';
import { CredentialRepository } from '../../src/data-access/credential.repository';
import { LicenseRequestRepository } from '../../src/data-access/license-request.repository';
import { LicenseRepository } from '../../src/data-access/license.repository';
import { expireDueLicenses, type ExpiryRun } from '../../src/domain/expire-due-licenses.use-case';
import type { LicensingContext } from '../../src/domain/ports';
import { generatePrivateJwk, signingKeyFrom, type SigningKey } from '../../src/domain/signing-keys';
import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// The license expiry job on two replicas (issue #34, "Singletons that are not"). A pass locks the
// due licenses with FOR NO KEY UPDATE SKIP LOCKED and settles them (expired or renewed, the event,
// the renewal's credential and its status list entry) in that one transaction: another replica's
// pass skips them. The "lease" is the transaction: it ends with the holder's session, at once when
// the holder dies (its connection closes), and within idle_in_transaction_session_timeout (30 s in
// production, 1 s here) when it is cut off from the database; a commit after that cannot land, so
// nothing outlives the transaction to be fenced. The replicas here are two contexts of the use case,
// each with its own pool, on the harness's database (licenses made through its API).

let h: LicensingHarness;
let key: SigningKey;
let pools: Database[] = [];
/** Passes a test left paused: let go before the pools close (a pool waits for its clients). */
let paused: Array<() => void> = [];

beforeAll(async () => {
  key = await signingKeyFrom(JSON.stringify(await generatePrivateJwk()));
});
// A harness per test: renewed licenses of one test are due again when the next moves the clock.
beforeEach(async () => {
  h = await startLicensingHarness();
});
afterEach(async () => {
  for (const go of paused) go();
  for (const pool of pools) await pool.close().catch(() => undefined);
  paused = [];
  pools = [];
  await h.stop();
});

const DAY = 86_400_000;

/** A replica's context of the expiry job, on its own pool. */
function replica(db: Database): LicensingContext {
  return {
    db,
    boxes: new BoxProjectionRepository(),
    registry: { snapshot: async () => null, close: async () => undefined },
    requests: new LicenseRequestRepository(),
    licenses: new LicenseRepository(),
    billing: {
      usageOf: async () => {
        throw new Error('the expiry job does not ask billing');
      },
      close: async () => undefined,
    },
    clocks: new SandboxClockRepository(),
    clock: h.clock,
    outbox: appendToOutbox,
    eventsCommitted: () => undefined,
    entityVersion: currentEntityVersion,
    newId,
    credentials: new CredentialRepository(),
    signer: { issuer: 'https://licensing.example', key: () => key },
  };
}

/** A replica's pool (closed after the test). */
async function pool(
  url: string,
  options: { queryTimeoutMs?: number; idleInTransactionTimeoutMs?: number } = {},
): Promise<Database> {
  const db = await createDatabase({ url, maxConnections: 2, ...options });
  pools.push(db);
  return db;
}

function proxied(proxy: BlackholeProxy): string {
  const url = new URL(h.databaseUrl);
  url.port = String(proxy.port);
  return url.toString();
}

async function proxy(): Promise<BlackholeProxy> {
  const target = new URL(h.databaseUrl);
  return startBlackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
}

/**
 * `db` whose next transaction stops before its first statement matching `at` (its due rows
 * locked, nothing committed) until `go()`; `stopped` settles when it got there.
 */
function pausedAt(db: Database, at: RegExp): { db: Database; stopped: Promise<void>; go(): void } {
  let reached!: () => void;
  const stopped = new Promise<void>((resolve) => (reached = resolve));
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  let armed = true;
  paused.push(go);
  const stoppable = Object.create(db) as Database;
  stoppable.transaction = (fn, options) =>
    db.transaction(
      (tx) =>
        fn({
          query: async <R extends object>(sql: string, params?: unknown[], opts?: QueryOptions) => {
            if (armed && at.test(sql)) {
              armed = false;
              reached();
              await gate;
            }
            return tx.query<R>(sql, params, opts);
          },
          exec: (sql: string) => tx.exec(sql),
        } satisfies Queryable),
      options,
    );
  return { db: stoppable, stopped, go };
}

/** `count` active licenses of one licensee, every other one renewing itself; due 32 days from now. */
async function dueLicenses(count: number): Promise<{ renewing: string[]; ending: string[] }> {
  const client = h.platform();
  const renewing: string[] = [];
  const ending: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const autoRenew = i % 2 === 0;
    const { license } = await h.activeLicense(client, { autoRenew });
    (autoRenew ? renewing : ending).push(license.id as string);
  }
  h.clock.advance(32 * DAY);
  return { renewing, ending };
}

const total = (runs: ExpiryRun[]) =>
  runs.reduce((sum, run) => ({ expired: sum.expired + run.expired, renewed: sum.renewed + run.renewed }), {
    expired: 0,
    renewed: 0,
  });

/** What the licenses show: events, credentials and status list entries, counted per license. */
async function settledOnce(licenses: { renewing: string[]; ending: string[] }): Promise<void> {
  const ids = [...licenses.renewing, ...licenses.ending];
  const events = await h.running.db.query<{ type: string; n: number; licenses: number }>(
    `SELECT type, count(*)::int AS n, count(DISTINCT payload->'data'->>'licenseId')::int AS licenses
       FROM outbox WHERE type IN ('licensing.license.expired', 'licensing.license.renewed')
        AND payload->'data'->>'licenseId' = ANY($1::text[])
      GROUP BY type ORDER BY type`,
    [ids],
  );
  const half = ids.length / 2;
  expect(events.rows).toEqual([
    { type: 'licensing.license.expired', n: half, licenses: half },
    { type: 'licensing.license.renewed', n: half, licenses: half },
  ]);
  const statuses = await h.running.db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM licenses WHERE id = ANY($1::text[]) GROUP BY status ORDER BY status',
    [ids],
  );
  expect(statuses.rows).toEqual([
    { status: 'active', n: half },
    { status: 'expired', n: half },
  ]);
  // A renewal signs one credential for the new period (beside the activation's), with the license's
  // one status list entry; no entry is drawn twice.
  const credentials = await h.running.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM license_credentials WHERE license_id = ANY($1::text[])',
    [licenses.renewing],
  );
  expect(credentials.rows[0]?.n).toBe(2 * half);
  const entries = await h.running.db.query<{ n: number; licenses: number; indexes: number }>(
    `SELECT count(*)::int AS n, count(DISTINCT license_id)::int AS licenses, count(DISTINCT idx)::int AS indexes
       FROM license_status_entries WHERE license_id = ANY($1::text[])`,
    [ids],
  );
  expect(entries.rows[0]).toEqual({ n: ids.length, licenses: ids.length, indexes: ids.length });
}

describe('the license expiry job on two replicas', () => {
  it('when both replicas run passes at once, many times, then each due license is expired or renewed once, with one event and one credential', async () => {
    const licenses = await dueLicenses(12);
    const a = replica(await pool(h.databaseUrl));
    const b = replica(await pool(h.databaseUrl));
    const runs: ExpiryRun[] = [];
    for (let round = 0; round < 3; round += 1) {
      runs.push(...(await Promise.all([a, b, a, b].map((ctx) => expireDueLicenses(ctx)))));
    }
    expect(total(runs)).toEqual({ expired: 6, renewed: 6 });
    await settledOnce(licenses);
  });

  it('when the replica in the middle of a pass dies, then the other skips its licenses while it lives and settles each of them once right after', async () => {
    const licenses = await dueLicenses(6);
    const link = await proxy();
    try {
      const dying = pausedAt(await pool(proxied(link), { queryTimeoutMs: 1000 }), /insert into "outbox"/i);
      const b = replica(await pool(h.databaseUrl));
      const pass = expireDueLicenses(replica(dying.db)).catch((err: unknown) => err);
      await dying.stopped;
      // Its licenses are locked by its open transaction: the other replica's pass skips them.
      expect(await expireDueLicenses(b)).toEqual({ expired: 0, renewed: 0, cancelled: 0 });
      // The process dies: its connection closes, the server rolls its transaction back.
      await link.close();
      const started = performance.now();
      expect(await expireDueLicenses(b)).toEqual({ expired: 3, renewed: 3, cancelled: 0 });
      expect(performance.now() - started).toBeLessThan(1000);
      dying.go();
      expect(await pass).toBeInstanceOf(Error);
      await settledOnce(licenses);
    } finally {
      await link.close();
    }
  });

  it('when the replica in the middle of a pass is cut off from the database, then the other settles its licenses once its session is ended (1 s here), and the cut-off pass commits nothing', async () => {
    const licenses = await dueLicenses(6);
    const link = await proxy();
    try {
      const cutOff = pausedAt(
        await pool(proxied(link), { queryTimeoutMs: 1000, idleInTransactionTimeoutMs: 1000 }),
        /insert into "outbox"/i,
      );
      const b = replica(await pool(h.databaseUrl));
      const pass = expireDueLicenses(replica(cutOff.db)).catch((err: unknown) => err);
      await cutOff.stopped;
      link.blackhole();
      const started = performance.now();
      const runs: ExpiryRun[] = [];
      while (total(runs).expired + total(runs).renewed < 6 && performance.now() - started < 10_000) {
        runs.push(await expireDueLicenses(b));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const waited = performance.now() - started;
      expect(total(runs)).toEqual({ expired: 3, renewed: 3 });
      expect(waited).toBeGreaterThan(500);
      expect(waited).toBeLessThan(5000);
      // The link heals and the cut-off replica goes on: its transaction is gone, nothing commits.
      link.heal();
      cutOff.go();
      expect(await pass).toBeInstanceOf(Error);
      await settledOnce(licenses);
    } finally {
      await link.close();
    }
  });
});
