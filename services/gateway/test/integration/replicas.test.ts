import { ManualClock } from '@svc/clock';
import { createDatabase, type Database } from '@svc/storage';
import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// Two gateway replicas on one database, as in cluster mode: each keeps its own key cache and its
// own leases of budget (ADR 0025); nothing but PostgreSQL is shared between them.
let a: Harness;
let b: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;
let db: Database;

beforeAll(async () => {
  echo = await startEchoService();
  const clock = new ManualClock('2026-11-27T10:00:05.000Z');
  a = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url }, clock });
  b = await startHarness({
    routes: ECHO_ROUTES,
    serviceUrls: { REGISTRY_URL: echo.url },
    clock,
    databaseUrl: a.databaseUrl,
  });
  db = await createDatabase({ url: a.databaseUrl });
});
afterAll(async () => {
  await db.close();
  await b.stop();
  await a.stop();
  await echo.service.stop();
});

const ECHO = '/v1/svc/echo/1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds until `replica` refuses `key` with `code` (polling), or Infinity after `withinMs`. */
async function msUntilRefused(
  replica: Harness,
  key: string,
  code: string,
  withinMs = 3_000,
): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    const res = await replica.call(key, 'GET', ECHO);
    if (res.status === 401 && res.body.error.code === code) return performance.now() - started;
    await sleep(20);
  }
  return Number.POSITIVE_INFINITY;
}

describe('two gateway replicas on one database', () => {
  it('when more than a minute limit is fired at both replicas alternately and at once, then no more than the limit is accepted, and all but a lease or two of it', async () => {
    // 1,000 a minute: leases of up to 15 units (1/64 of what is left), so budget really moves in slices.
    const { key } = await a.platform('enterprise', { limits: { perMinute: 1_000, perDay: 1_000_000 } });
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let wave = 0; wave < 60; wave += 1) {
      // 20 at once: 10 at each replica, interleaved.
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).call(key, 'GET', ECHO)),
      );
      for (const res of answers) {
        statuses.push(res.status);
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
      }
    }
    const accepted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // The bound of ADR 0025: the replicas together never accept more than the limit...
    expect(accepted).toBeLessThanOrEqual(1_000);
    // ...and refuse early by at most what the other replica holds unspent (one lease per bucket).
    expect(accepted).toBeGreaterThanOrEqual(1_000 - 2 * 15);
    expect(remaining.every((n) => n >= 0 && n <= 999)).toBe(true);
    // Past the limit both replicas refuse with the contract's details.
    for (const replica of [a, b]) {
      const refused = await replica.call(key, 'GET', ECHO);
      expect(refused.status).toBe(429);
      expect(refused.body.error.details).toMatchObject({ limit: 1000, remaining: 0 });
      expect(refused.headers.get('retry-after')).toBe('55');
    }
  });

  it('when a replica holds budget it no longer spends, then it gives it back and the other replica may spend it', async () => {
    // 640 a minute: the first lease is 10 units; replica a spends 4 of them and falls idle.
    const { key } = await a.platform('enterprise', { limits: { perMinute: 640, perDay: 1_000_000 } });
    for (let i = 0; i < 4; i += 1) expect((await a.call(key, 'GET', ECHO)).status).toBe(200);
    await sleep(2_000);
    let accepted = 0;
    for (let wave = 0; wave < 33; wave += 1) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => b.call(key, 'GET', ECHO)));
      accepted += answers.filter((res) => res.status === 200).length;
    }
    expect(accepted).toBe(640 - 4);
  });

  it('when a key is revoked through one replica, then both refuse it within 1 s and its successor works on both', async () => {
    const { key, keyId } = await a.platform('sandbox');
    // Both replicas know the key (and would answer from memory).
    expect((await a.call(key, 'GET', ECHO)).status).toBe(200);
    expect((await b.call(key, 'GET', ECHO)).status).toBe(200);
    const revoked = await a.admin('POST', `/admin/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(200);
    // The replica that revoked it refuses at once; the other within 1 s.
    const onA = await a.call(key, 'GET', ECHO);
    expect(onA.body.error?.code).toBe('KEY_REVOKED');
    expect(await msUntilRefused(b, key, 'KEY_REVOKED')).toBeLessThan(1_000);
    expect((await a.call(revoked.body.data.key, 'GET', ECHO)).status).toBe(200);
    expect((await b.call(revoked.body.data.key, 'GET', ECHO)).status).toBe(200);
  });

  it('when the replicas lose their change feed, then a key revoked meanwhile is still refused by both within 1 s', async () => {
    const { key, keyId } = await a.platform('sandbox');
    expect((await a.call(key, 'GET', ECHO)).status).toBe(200);
    expect((await b.call(key, 'GET', ECHO)).status).toBe(200);
    const killed = await db.query<{ pid: number }>(
      `SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'listen:gateway_key_changes'`,
    );
    expect(killed.rows.length).toBe(2);
    // Revoked behind both replicas' backs: no replica revoked it, and no notification reaches them.
    await db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [keyId]);
    expect(await msUntilRefused(a, key, 'KEY_REVOKED')).toBeLessThan(1_000);
    expect(await msUntilRefused(b, key, 'KEY_REVOKED')).toBeLessThan(1_000);
    // Both listen again on their own.
    let listening = 0;
    for (let tries = 0; tries < 50 && listening < 2; tries += 1) {
      await sleep(100);
      const sessions = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'listen:gateway_key_changes'`,
      );
      listening = sessions.rows[0]?.n ?? 0;
    }
    expect(listening).toBe(2);
  });

  it('when a key is rotated through one replica, then the old key works on both until its overlap ends, then both answer KEY_EXPIRED', async () => {
    const { key, keyId } = await a.platform('sandbox');
    expect((await b.call(key, 'GET', ECHO)).status).toBe(200);
    const rotated = await a.admin('POST', `/admin/keys/${keyId}/rotate`);
    expect(rotated.status).toBe(200);
    await sleep(1_000);
    for (const replica of [a, b]) {
      expect((await replica.call(key, 'GET', ECHO)).status).toBe(200);
      const successor = await replica.call(rotated.body.data.key, 'GET', ECHO);
      expect(successor.status).toBe(200);
    }
    // One budget for the chain: the 6th request of 60, whichever key and replica.
    const last = await b.call(rotated.body.data.key, 'GET', ECHO);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('54');
    a.clock.advance(24 * 3_600_000);
    for (const replica of [a, b]) {
      const expired = await replica.call(key, 'GET', ECHO);
      expect(expired.body.error?.code).toBe('KEY_EXPIRED');
      expect((await replica.call(rotated.body.data.key, 'GET', ECHO)).status).toBe(200);
    }
  });
});
