import { SandboxClockRepository } from '@svc/clock';
import { newId } from '@svc/ids';
import { appendToOutbox } from '@svc/messaging';
import { createDatabase, type Database, type QueryOptions, type Queryable } from '@svc/storage';
import { startBlackholeProxy, type BlackholeProxy } from '@svc/test-kit';
import { FeeChargeRepository } from '../../src/data-access/fee-charge.repository';
import { LedgerRepository } from '../../src/data-access/ledger.repository';
import { LicenseRepository } from '../../src/data-access/license.repository';
import { UsageReportRepository } from '../../src/data-access/usage-report.repository';
import { accrueDueFees } from '../../src/domain/accrue-license-fees.use-case';
import type { BillingContext } from '../../src/domain/ports';
import { startBillingHarness, type BillingHarness } from '../fixtures/billing-harness';

// The fee job on two replicas (issue #34, "Singletons that are not"). A pass brings each active
// license's fees up to date in a transaction of its own that first locks the license's row (FOR
// UPDATE: a replica waits for the other, it does not skip) and recomputes from the charges stored:
// the replica that waits finds the period charged and changes nothing. The lock is the
// transaction's: it ends with the holder's session, at once when the holder dies (its connection
// closes), within idle_in_transaction_session_timeout (30 s in production, 1 s here) when it is cut
// off from the database; a commit after that cannot land, so there is nothing left to fence. The
// replicas here are two contexts of the use case, each with its own pool, on the harness's database.

let h: BillingHarness;
/** Licenses with a fee made so far: each one has a new period to be charged when a month begins. */
let licensed = 0;
let pools: Database[] = [];
/** Passes a test left paused: let go before the pools close (a pool waits for its clients). */
let paused: Array<() => void> = [];

beforeAll(async () => {
  h = await startBillingHarness();
});
afterEach(async () => {
  for (const go of paused) go();
  for (const pool of pools) await pool.close().catch(() => undefined);
  paused = [];
  pools = [];
});
afterAll(async () => {
  await h.stop();
});

/** A replica's context of the fee job, on its own pool. */
function replica(db: Database): BillingContext {
  return {
    db,
    licenses: new LicenseRepository(),
    licensing: { snapshot: async () => null, close: async () => undefined },
    reports: new UsageReportRepository(),
    ledger: new LedgerRepository(),
    fees: new FeeChargeRepository(),
    clocks: new SandboxClockRepository(),
    clock: h.clock,
    outbox: appendToOutbox,
    eventsCommitted: () => undefined,
    newId,
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

async function proxy(): Promise<{ link: BlackholeProxy; url: string }> {
  const target = new URL(h.databaseUrl);
  const link = await startBlackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
  target.port = String(link.port);
  return { link, url: target.toString() };
}

/**
 * `db` whose next transaction stops before its first statement matching `at` (the license locked,
 * nothing committed) until `go()`; `stopped` settles when it got there.
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

/** `count` licenses with a fee, billed from the 1st of the harness's month; then the next month begins. */
async function licensesIntoNextMonth(count: number): Promise<{ ids: string[]; period: string }> {
  const now = h.clock.now();
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const license = await h.activeLicense(h.platform(), h.platform(), {
      monthlyFeeCents: 1000,
      validFrom: month.toISOString(),
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    ids.push(license.licenseId);
  }
  licensed += count;
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2));
  h.clock.set(next.toISOString());
  return { ids, period: next.toISOString().slice(0, 7) };
}

/** Every license's fee accrued once per period (ledger and payment.due), the new period included. */
async function chargedOnce({ ids, period }: { ids: string[]; period: string }): Promise<void> {
  const twice = await h.running.db.query(
    `SELECT license_id, period, count(*)::int AS n FROM ledger_entries
      WHERE charge = 'fee' AND kind = 'accrual' GROUP BY license_id, period HAVING count(*) > 1`,
  );
  expect(twice.rows).toEqual([]);
  const noticesTwice = await h.running.db.query(
    `SELECT payload->'data'->>'licenseId' AS license, payload->'data'->>'period' AS period, count(*)::int AS n
       FROM outbox WHERE type = 'billing.payment.due' AND payload->'data'->>'kind' = 'fee'
      GROUP BY 1, 2 HAVING count(*) > 1`,
  );
  expect(noticesTwice.rows).toEqual([]);
  const charged = await h.running.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_entries
      WHERE charge = 'fee' AND kind = 'accrual' AND period = $1 AND license_id = ANY($2::text[])`,
    [period, ids],
  );
  expect(charged.rows[0]?.n).toBe(ids.length);
}

describe('the fee job on two replicas', () => {
  it('when both replicas run passes at once, many times, then each license is charged once for the new period, with one payment.due', async () => {
    const licenses = await licensesIntoNextMonth(12);
    const a = replica(await pool(h.databaseUrl));
    const b = replica(await pool(h.databaseUrl));
    const changes: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      changes.push(...(await Promise.all([a, b, a, b].map((ctx) => accrueDueFees(ctx)))));
    }
    // Each change is one period of one license.
    expect(changes.reduce((sum, n) => sum + n, 0)).toBe(licensed);
    await chargedOnce(licenses);
  });

  it('when the replica charging a license dies, then the other waits for that license only while it lives and charges it once right after', async () => {
    const licenses = await licensesIntoNextMonth(4);
    const { link, url } = await proxy();
    try {
      const dying = pausedAt(await pool(url, { queryTimeoutMs: 1000 }), /insert into "ledger_entries"/i);
      const b = replica(await pool(h.databaseUrl));
      const pass = accrueDueFees(replica(dying.db)).catch((err: unknown) => err);
      await dying.stopped;
      // The other replica's pass waits for the license the dying one holds.
      let done = false;
      const other = accrueDueFees(b).finally(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBe(false);
      // The process dies: its connection closes, the server rolls its transaction back.
      await link.close();
      const started = performance.now();
      expect(await other).toBe(licensed);
      // Right after the death, not at the dying session's idle-in-transaction end (30 s by
      // default): the bound leaves room for a loaded machine (CI measured 1,036 ms once).
      expect(performance.now() - started).toBeLessThan(5000);
      dying.go();
      expect(await pass).toBeInstanceOf(Error);
      await chargedOnce(licenses);
    } finally {
      await link.close();
    }
  });

  it('when the replica charging a license is cut off from the database, then the other charges it once its session is ended (1 s here), and the cut-off commit never lands', async () => {
    const licenses = await licensesIntoNextMonth(4);
    const { link, url } = await proxy();
    try {
      const cutOff = pausedAt(
        await pool(url, { queryTimeoutMs: 1000, idleInTransactionTimeoutMs: 1000 }),
        /insert into "ledger_entries"/i,
      );
      const b = replica(await pool(h.databaseUrl));
      const pass = accrueDueFees(replica(cutOff.db)).catch((err: unknown) => err);
      await cutOff.stopped;
      link.blackhole();
      const started = performance.now();
      expect(await accrueDueFees(b)).toBe(licensed);
      const waited = performance.now() - started;
      // It waited for the server to end the silent session, not for TCP (hours).
      expect(waited).toBeGreaterThan(500);
      expect(waited).toBeLessThan(5000);
      link.heal();
      cutOff.go();
      expect(await pass).toBeInstanceOf(Error);
      await chargedOnce(licenses);
    } finally {
      await link.close();
    }
  });
});
