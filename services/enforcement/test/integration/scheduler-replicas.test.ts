import { createDatabase, type Database } from '@svc/storage';
import type { RunningEnforcement } from '../../src';
import {
  startEnforcementHarness,
  startReplica,
  type EnforcementHarness,
} from '../fixtures/enforcement-harness';

// Two enforcement instances (replicas) on one PostgreSQL database: the scheduler's due steps are
// claimed with FOR UPDATE SKIP LOCKED, so each step fires exactly once, with exactly its events.
let h: EnforcementHarness;
let replica: RunningEnforcement;
let db: Database;

beforeAll(async () => {
  h = await startEnforcementHarness();
  replica = await startReplica(h);
  db = await createDatabase({ url: h.databaseUrl });
});
afterAll(async () => {
  await db.close();
  await replica.stop();
  await h.stop();
});

const GRACE_PERIODS = 150;
const STEPS = GRACE_PERIODS * 5;

describe('the timeline scheduler on two replicas', () => {
  it('when both run at once over the same due steps, then every step fires exactly once with its events', async () => {
    await h.box('Replica Person', 'BLOCK_ALL');
    const client = h.platform();
    for (let i = 0; i < GRACE_PERIODS; i += 1) {
      await h.avatar(client, `r-${i}`, 'Replica Person', { userCount: i });
    }
    h.clock.advance(25 * 3_600_000);
    const runs = await Promise.all([
      h.running.fireDueSteps(),
      replica.fireDueSteps(),
      h.running.fireDueSteps(),
      replica.fireDueSteps(),
    ]);
    expect(runs.reduce((sum, run) => sum + run.fired, 0)).toBe(STEPS);
    expect(runs.reduce((sum, run) => sum + run.expired, 0)).toBe(GRACE_PERIODS);

    const steps = await db.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM timeline_steps GROUP BY status',
    );
    expect(steps.rows.map((r) => [r.status, Number(r.n)])).toEqual([['fired', STEPS]]);
    const outbox = await db.query<{ type: string; n: string; distinct_periods: string }>(
      `SELECT type, count(*) AS n, count(DISTINCT payload->'data'->>'gracePeriodId') AS distinct_periods
       FROM outbox WHERE type LIKE 'enforcement.grace_period.%' OR type = 'enforcement.violation.enforced'
       GROUP BY type ORDER BY type`,
    );
    expect(outbox.rows.map((r) => [r.type, Number(r.n)])).toEqual([
      ['enforcement.grace_period.ending', GRACE_PERIODS],
      ['enforcement.grace_period.expired', GRACE_PERIODS],
      ['enforcement.grace_period.reminder', GRACE_PERIODS * 3],
      ['enforcement.grace_period.started', GRACE_PERIODS],
      ['enforcement.violation.enforced', GRACE_PERIODS],
    ]);
    expect(
      Number(outbox.rows.find((r) => r.type === 'enforcement.grace_period.expired')?.distinct_periods),
    ).toBe(GRACE_PERIODS);
    const enforced = await client.call('GET', '/v1/svc/violations?status=enforced&limit=1');
    expect(enforced.body.meta.total).toBe(GRACE_PERIODS);
    expect(await h.running.fireDueSteps()).toEqual({ fired: 0, reminders: 0, endings: 0, expired: 0 });
  });

  it('when one platform advances its clock while both replicas poll, then its steps still fire once and in order', async () => {
    const box = await h.box('Race Person', 'BLOCK_ALL');
    const client = h.platform();
    for (let i = 0; i < 20; i += 1) await h.avatar(client, `race-${i}`, 'Race Person');
    const polling = (async () => {
      for (let i = 0; i < 10; i += 1) await Promise.all([h.running.fireDueSteps(), replica.fireDueSteps()]);
    })();
    const advanced = await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 30 * 3600 });
    await polling;
    const fired = await db.query<{ kind: string; n: string }>(
      `SELECT kind, count(*) AS n FROM timeline_steps s JOIN grace_periods g ON g.id = s.grace_period_id
       WHERE g.box_id = $1 AND s.status = 'fired' GROUP BY kind ORDER BY kind`,
      [box.boxId],
    );
    expect(fired.rows.map((r) => Number(r.n))).toEqual([20, 20, 20, 20, 20]);
    expect(advanced.body.data.stepsFired).toBeLessThanOrEqual(100);
    const expired = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM outbox WHERE type = 'enforcement.grace_period.expired' AND payload->'data'->>'boxId' = $1`,
      [box.boxId],
    );
    expect(Number(expired.rows[0]?.n)).toBe(20);
  });
});
