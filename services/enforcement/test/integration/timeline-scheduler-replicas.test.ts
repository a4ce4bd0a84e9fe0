import { SandboxClockRepository } from '@svc/clock';
import { appendToOutbox } from '@svc/messaging';
import { createDatabase, type Database, type QueryOptions, type Queryable } from '@svc/storage';
import { startBlackholeProxy, type BlackholeProxy } from '@svc/test-kit';
import { GracePeriodRepository } from '../../src/data-access/grace-period.repository';
import { TimelineRepository } from '../../src/data-access/timeline.repository';
import { ViolationRepository } from '../../src/data-access/violation.repository';
import { fireDueSteps } from '../../src/domain/fire-due-steps.use-case';
import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

// The timeline scheduler (the grace periods' reminders, endings and expiries) when the replica in
// the middle of a pass goes away (issue #34, "Singletons that are not"); two replicas passing at
// once are in scheduler-replicas.test.ts. A pass locks a batch of due steps FOR UPDATE SKIP LOCKED
// and fires them, their events included, in that one transaction: the other replica skips them
// while it is open. Its "lease" is the transaction, which ends with the holder's session: at once
// when the holder dies (its connection closes), within idle_in_transaction_session_timeout (30 s in
// production, 1 s here) when it is cut off from the database. A commit after that cannot land, so
// nothing outlives the transaction to be fenced. The replica that goes away here is a second
// scheduler on its own pool; the other is the harness's enforcement.

let h: EnforcementHarness;
const pools: Database[] = [];
/** Passes a test left paused: let go before the pools close (a pool waits for its clients). */
const paused: Array<() => void> = [];

beforeAll(async () => {
  h = await startEnforcementHarness();
});
afterAll(async () => {
  for (const go of paused) go();
  for (const pool of pools) await pool.close().catch(() => undefined);
  await h.stop();
});

const HOUR = 3_600_000;
const GRACE_PERIODS = 6;
let boxes = 0;

async function proxy(): Promise<{ link: BlackholeProxy; url: string }> {
  const target = new URL(h.databaseUrl);
  const link = await startBlackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
  target.port = String(link.port);
  return { link, url: target.toString() };
}

/**
 * A scheduler on its own pool (statements unanswered for 1 s fail) whose first batch stops before
 * writing its events (its steps locked and marked fired, nothing committed) until `go()`.
 */
async function stoppingScheduler(url: string, idleInTransactionTimeoutMs?: number) {
  const db = await createDatabase({
    url,
    maxConnections: 1,
    queryTimeoutMs: 1000,
    ...(idleInTransactionTimeoutMs === undefined ? {} : { idleInTransactionTimeoutMs }),
  });
  pools.push(db);
  let reached!: () => void;
  const stopped = new Promise<void>((resolve) => (reached = resolve));
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  paused.push(go);
  let armed = true;
  const stopping = Object.create(db) as Database;
  stopping.transaction = (fn, options) =>
    db.transaction(
      (tx) =>
        fn({
          query: async <R extends object>(sql: string, params?: unknown[], opts?: QueryOptions) => {
            if (armed && /insert into "outbox"/i.test(sql)) {
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
  const pass = fireDueSteps({
    db: stopping,
    violations: new ViolationRepository(),
    gracePeriods: new GracePeriodRepository(),
    timeline: new TimelineRepository(),
    clocks: new SandboxClockRepository(),
    clock: h.clock,
    outbox: appendToOutbox,
    eventsCommitted: () => undefined,
  }).catch((err: unknown) => err);
  return { pass, stopped, go };
}

/** A box with `GRACE_PERIODS` violations whose every step (3 reminders, ending, expiry) is due. */
async function dueGracePeriods(): Promise<string> {
  boxes += 1;
  const box = await h.box(`Timeline Person ${boxes}`, 'BLOCK_ALL');
  const client = h.platform();
  for (let i = 0; i < GRACE_PERIODS; i += 1) await h.violation(client, box);
  h.clock.advance(25 * HOUR);
  return box.boxId;
}

/** Every step of the box's grace periods fired once, with its one event. */
async function firedOnce(boxId: string): Promise<void> {
  const steps = await h.running.db.query<{ status: string; n: number }>(
    `SELECT s.status, count(*)::int AS n FROM timeline_steps s JOIN grace_periods g ON g.id = s.grace_period_id
      WHERE g.box_id = $1 GROUP BY s.status`,
    [boxId],
  );
  expect(steps.rows).toEqual([{ status: 'fired', n: 5 * GRACE_PERIODS }]);
  const events = await h.running.db.query<{ type: string; n: number; periods: number }>(
    `SELECT type, count(*)::int AS n, count(DISTINCT payload->'data'->>'gracePeriodId')::int AS periods FROM outbox
      WHERE type IN ('enforcement.grace_period.reminder', 'enforcement.grace_period.ending',
                     'enforcement.grace_period.expired')
        AND payload->'data'->>'boxId' = $1
      GROUP BY type ORDER BY type`,
    [boxId],
  );
  expect(events.rows).toEqual([
    { type: 'enforcement.grace_period.ending', n: GRACE_PERIODS, periods: GRACE_PERIODS },
    { type: 'enforcement.grace_period.expired', n: GRACE_PERIODS, periods: GRACE_PERIODS },
    { type: 'enforcement.grace_period.reminder', n: 3 * GRACE_PERIODS, periods: GRACE_PERIODS },
  ]);
}

describe('the timeline scheduler when a replica goes away mid-pass', () => {
  it('when the replica in the middle of a pass dies, then the other skips its steps while it lives and fires each of them once right after', async () => {
    const boxId = await dueGracePeriods();
    const { link, url } = await proxy();
    try {
      const dying = await stoppingScheduler(url);
      await dying.stopped;
      // Its steps are locked by its open transaction: the other replica's pass skips them.
      expect((await h.running.fireDueSteps()).fired).toBe(0);
      // The process dies: its connection closes, the server rolls its batch back.
      await link.close();
      const started = performance.now();
      expect(await h.running.fireDueSteps()).toEqual({
        fired: 5 * GRACE_PERIODS,
        reminders: 3 * GRACE_PERIODS,
        endings: GRACE_PERIODS,
        expired: GRACE_PERIODS,
      });
      expect(performance.now() - started).toBeLessThan(2000);
      dying.go();
      expect(await dying.pass).toBeInstanceOf(Error);
      await firedOnce(boxId);
    } finally {
      await link.close();
    }
  });

  it('when the replica in the middle of a pass is cut off from the database, then the other fires its steps once its session is ended (1 s here), and the cut-off batch never commits', async () => {
    const boxId = await dueGracePeriods();
    const { link, url } = await proxy();
    try {
      const cutOff = await stoppingScheduler(url, 1000);
      await cutOff.stopped;
      link.blackhole();
      const started = performance.now();
      let fired = 0;
      while (fired < 5 * GRACE_PERIODS && performance.now() - started < 10_000) {
        fired += (await h.running.fireDueSteps()).fired;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const waited = performance.now() - started;
      expect(fired).toBe(5 * GRACE_PERIODS);
      expect(waited).toBeGreaterThan(500);
      expect(waited).toBeLessThan(5000);
      // The link heals and the cut-off replica goes on: its transaction is gone, nothing commits.
      link.heal();
      cutOff.go();
      expect(await cutOff.pass).toBeInstanceOf(Error);
      await firedOnce(boxId);
    } finally {
      await link.close();
    }
  });
});
