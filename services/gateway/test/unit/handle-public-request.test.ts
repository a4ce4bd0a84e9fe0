import type { Queryable } from '@svc/storage';
import { ManualClock } from '@svc/clock';
import { isAppError } from '@svc/errors';
import { hashApiKey } from '../../src/domain/api-key';
import { handlePublicRequest, type PublicRequest } from '../../src/domain/handle-public-request.use-case';
import type { AuthenticatedKey, IdempotencyStore, KeyAuthenticationStore } from '../../src/domain/ports';
import type { RateCounterStore, SessionStore } from '../../src/domain/account-ports';
import { RouteTable } from '../../src/domain/route-table';
import type { UpstreamClient } from '../../src/domain/upstream.client';

const KEY = 'svc_test_0123456789abcdefghijklmnopqrstuv';

function storeCounting(minuteCount: number): KeyAuthenticationStore & { calls: number } {
  const found: AuthenticatedKey = {
    keyId: 'key_1',
    keyHash: hashApiKey(KEY),
    platformId: 'plat_1',
    environment: 'sandbox',
    budgetId: 'key_1',
    expiresAt: null,
    revokedAt: null,
    plan: 'sandbox',
    platformName: 'Test platform',
    domain: null,
    storedLimits: null,
    scope: 'full',
    minuteCount,
    dayCount: minuteCount,
    extraCount: null,
  };
  const store = {
    calls: 0,
    authenticateAndCount: async () => {
      store.calls += 1;
      return found;
    },
    purgeCounters: async () => 0,
  };
  return store;
}

// These stories end before a request is forwarded: any call upstream is a failure.
const noUpstream = {
  forward: () => Promise.reject(new Error('forwarded')),
} as unknown as UpstreamClient;
const noIdempotency = {
  bind: () => Promise.reject(new Error('bound')),
  release: () => Promise.reject(new Error('released')),
} as unknown as IdempotencyStore;

// The store under test is a stand-in: the database it would be handed is never used.
const noDatabase = {
  query: () => Promise.reject(new Error('queried')),
} as unknown as Queryable;

function depsWith(store: KeyAuthenticationStore) {
  return {
    hotPathDb: noDatabase,
    store,
    clock: new ManualClock('2026-03-01T12:00:30.000Z'),
    environment: 'sandbox' as const,
    routes: new RouteTable([
      { id: 'getLicense', method: 'GET', path: '/v1/svc/licenses/:id', service: 'licensing' },
    ]),
    upstreams: noUpstream,
    idempotency: noIdempotency,
    // These requests carry keys, not sessions.
    sessions: {} as unknown as SessionStore,
    counters: {} as unknown as RateCounterStore,
  };
}

function request(path: string): PublicRequest {
  return {
    method: 'GET',
    path,
    url: `${path}?limit=5`,
    authorization: `Bearer ${KEY}`,
    idempotencyKey: undefined,
    body: undefined,
    requestId: 'req_1',
  };
}

describe('handle a public request', () => {
  it('when the path is outside the public families, then it is not this story and no key is counted', async () => {
    const store = storeCounting(1);

    const answer = await handlePublicRequest(depsWith(store), request('/healthz'));

    expect(answer).toEqual({ kind: 'not-public' });
    expect(store.calls).toBe(0);
  });

  it('when the key is over its minute budget, then it is refused RATE_LIMITED with the rate headers and Retry-After', async () => {
    const answer = await handlePublicRequest(depsWith(storeCounting(61)), request('/v1/svc/licenses/lic_1'));

    expect(answer.kind).toBe('refused');
    if (answer.kind !== 'refused') return;
    expect(answer.rateHeaders).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0' });
    expect(isAppError(answer.error) && answer.error.code).toBe('RATE_LIMITED');
    expect(isAppError(answer.error) && answer.error.headers).toMatchObject({ 'Retry-After': '30' });
  });

  it('when no route matches a public path, then it is refused NOT_FOUND after counting, with the rate headers', async () => {
    const store = storeCounting(1);

    const answer = await handlePublicRequest(depsWith(store), request('/v1/svc/nothing-here'));

    expect(store.calls).toBe(1);
    expect(answer.kind).toBe('refused');
    if (answer.kind !== 'refused') return;
    expect(answer.rateHeaders).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59' });
    expect(isAppError(answer.error) && answer.error.code).toBe('NOT_FOUND');
  });
});
