import type { Queryable } from '@svc/storage';
import { ManualClock } from '@svc/clock';
import { AppError } from '@svc/errors';
import { batchRead } from '../../src/domain/batch-read.use-case';
import type { IdempotencyStore } from '../../src/domain/ports';
import type { ActiveSession, RateCounterStore, SessionStore } from '../../src/domain/account-ports';
import { RouteTable } from '../../src/domain/route-table';
import type { UpstreamClient } from '../../src/domain/upstream.client';

// The dashboard's batch of reads (#32), its rules without a database: each read answered as
// alone (its own error included), the batch counted once, a spent budget refusing it whole.

const session = {
  id: 'sess_1',
  csrfToken: 'csrf_1',
  expiresAt: new Date(Date.UTC(2027, 0, 1)),
  account: { id: 'acct_1', email: 'a@example.com', name: 'A', role: 'platform', platformId: 'plat_1' },
  platform: { id: 'plat_1', name: 'A', plan: 'sandbox', domain: null },
} as unknown as ActiveSession;

function depsWith(counted: number, forward: UpstreamClient['forward']) {
  const increments: string[][] = [];
  return {
    increments,
    deps: {
      hotPathDb: {} as Queryable,
      sessions: { findActive: async () => session } as unknown as SessionStore,
      counters: {
        increment: async (_db: Queryable, buckets: { bucket: string }[]) => {
          increments.push(buckets.map((b) => b.bucket));
          return new Map(buckets.map((b) => [b.bucket, counted]));
        },
      } as unknown as RateCounterStore,
      clock: new ManualClock(new Date(Date.UTC(2026, 10, 30, 12))),
      environment: 'sandbox' as const,
      routes: new RouteTable([
        { id: 'getThing', method: 'GET', path: '/v1/svc/things/:id', service: 'registry' },
        { id: 'usage', method: 'GET', path: '/v1/svc/usage', service: 'billing', bucket: 'usage-report' },
      ]),
      upstreams: { forward } as unknown as UpstreamClient,
      idempotency: {} as IdempotencyStore,
      sessionBudget: { perMinute: 5, perDay: 100 },
    },
  };
}

const credentials = {
  token: 'token',
  method: 'POST',
  csrfToken: 'csrf_1',
  origin: undefined,
  host: 'localhost',
};

describe('the dashboard batch (#32)', () => {
  it('when reads are batched, then each gets its own answer in order, errors included, and the budget counts once', async () => {
    const { deps, increments } = depsWith(1, async (_service, _claims, request) => {
      if (request.path.startsWith('/v1/svc/things/down')) throw new AppError('SERVICE_UNAVAILABLE', 'down');
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ data: { path: request.path } })),
      };
    });
    const { answers, rateHeaders } = await batchRead(deps, {
      session: credentials,
      readPaths: () => ['/v1/svc/things/a?x=1', '/v1/svc/things/down', '/v1/svc/nothing'],
      requestId: 'req_1',
    });
    expect(increments).toHaveLength(1);
    expect(rateHeaders['X-RateLimit-Remaining'] ?? rateHeaders['x-ratelimit-remaining']).toBe('4');
    expect(answers[0]).toEqual({ status: 200, body: { data: { path: '/v1/svc/things/a?x=1' } } });
    expect(answers[1]).toMatchObject({
      status: 503,
      retryAfter: 1,
      body: { error: { code: 'SERVICE_UNAVAILABLE' } },
    });
    expect(answers[2]).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('when a read is outside the public API or has its own bucket, or the budget is spent, then the batch is refused (counted, as any refused call) and nothing is sent', async () => {
    let sent = 0;
    const forward = async () => {
      sent += 1;
      return { status: 200, headers: {}, body: Buffer.alloc(0) };
    };
    const fresh = depsWith(1, forward);
    await expect(
      batchRead(fresh.deps, { session: credentials, readPaths: () => ['/admin/platforms'], requestId: 'r' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      batchRead(fresh.deps, { session: credentials, readPaths: () => ['/v1/svc/usage'], requestId: 'r' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    // The session is known (and its budget counted) before the reads are judged.
    expect(fresh.increments).toHaveLength(2);
    const spent = depsWith(6, forward);
    await expect(
      batchRead(spent.deps, { session: credentials, readPaths: () => ['/v1/svc/things/a'], requestId: 'r' }),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(sent).toBe(0);
    // An empty answer reads as null.
    const empty = await batchRead(fresh.deps, {
      session: credentials,
      readPaths: () => ['/v1/svc/things/a'],
      requestId: 'r',
    });
    expect(empty.answers).toEqual([{ status: 200, body: null }]);
  });

  it('when the session is unknown, then 401 before the reads are even looked at', async () => {
    const fresh = depsWith(1, async () => ({ status: 200, headers: {}, body: Buffer.alloc(0) }));
    let judged = false;
    await expect(
      batchRead(fresh.deps, {
        session: { ...credentials, token: undefined },
        readPaths: () => {
          judged = true;
          return ['/admin/platforms'];
        },
        requestId: 'r',
      }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(judged).toBe(false);
  });
});
