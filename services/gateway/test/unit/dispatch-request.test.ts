import type { Queryable } from '@svc/ports';
import { ManualClock } from '@svc/clock';
import { AppError, isAppError } from '@svc/errors';
import type { Caller } from '../../src/domain/authenticate-request.use-case';
import { claimsOf, dispatchRequest, searchOf } from '../../src/domain/dispatch-request.use-case';
import type { IdempotencyBinding, IdempotencyStore } from '../../src/domain/ports';
import { RouteTable } from '../../src/domain/route-table';
import type { UpstreamClient } from '../../src/domain/upstream.client';

const table = new RouteTable([
  { id: 'createClaim', method: 'POST', path: '/v1/svc/claims', service: 'registry' },
  { id: 'getClaim', method: 'GET', path: '/v1/svc/claims/:id', service: 'registry' },
  {
    id: 'verifyClaimHelper',
    method: 'POST',
    path: '/v1/svc/test-helpers/claims/:id/verify',
    service: 'registry',
    sandboxOnly: true,
  },
  { id: 'listPlatforms', method: 'GET', path: '/v1/svc/platforms', service: 'gateway' },
]);

const sandboxCaller: Caller = {
  platformId: 'plat_1',
  keyId: 'key_1',
  environment: 'sandbox',
  plan: 'basic',
  name: 'Avatar platform',
  domain: null,
};

const noDatabase = { query: () => Promise.reject(new Error('queried')) } as unknown as Queryable;

interface Calls {
  forwarded: Array<{ service: string; path: string; idempotencyKey?: string }>;
  released: string[];
}

function deps(options: { bind?: IdempotencyBinding | Error; answer?: { status: number } | Error }): {
  deps: Parameters<typeof dispatchRequest>[0];
  calls: Calls;
} {
  const calls: Calls = { forwarded: [], released: [] };
  const idempotency = {
    bind: async () => {
      if (options.bind instanceof Error) throw options.bind;
      return options.bind ?? 'new';
    },
    release: async (_q: Queryable, _platformId: string, key: string) => {
      calls.released.push(key);
    },
    purge: async () => 0,
  } as IdempotencyStore;
  const upstreams = {
    forward: async (
      service: string,
      _claims: unknown,
      request: { path: string; idempotencyKey?: string },
    ) => {
      calls.forwarded.push({
        service,
        path: request.path,
        ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      });
      const answer = options.answer ?? { status: 201 };
      if (answer instanceof Error) throw answer;
      return { status: answer.status, headers: {}, body: '{}' };
    },
  } as unknown as UpstreamClient;
  return {
    deps: {
      upstreams,
      hotPathDb: noDatabase,
      idempotency,
      clock: new ManualClock(new Date('2026-11-27T10:00:00Z')),
    },
    calls,
  };
}

function input(method: string, url: string, overrides: Partial<Parameters<typeof dispatchRequest>[1]> = {}) {
  return {
    caller: sandboxCaller,
    matched: table.match(method, url.split('?')[0] ?? url),
    method,
    url,
    search: searchOf(url),
    body: method === 'GET' ? undefined : Buffer.from(JSON.stringify({ name: 'Ada Lovelace' })),
    idempotencyKey: undefined,
    requestId: 'req_1',
    ...overrides,
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
  throw new Error('not refused');
}

describe('dispatching an authenticated request', () => {
  it('when no route, a gateway route or a sandbox helper with a live key is asked for, then it is refused and nothing is forwarded', async () => {
    const { deps: d, calls } = deps({});
    expect(await codeOf(dispatchRequest(d, input('GET', '/v1/svc/nowhere')))).toBe('NOT_FOUND');
    expect(await codeOf(dispatchRequest(d, input('GET', '/v1/svc/platforms')))).toBe('NOT_FOUND');
    const live = { ...sandboxCaller, environment: 'production' as const };
    expect(
      await codeOf(
        dispatchRequest(d, input('POST', '/v1/svc/test-helpers/claims/claim_1/verify', { caller: live })),
      ),
    ).toBe('FORBIDDEN');
    expect(calls.forwarded).toHaveLength(0);
  });

  it('when a read is forwarded, then the query string goes along and the claims name the caller', async () => {
    const { deps: d, calls } = deps({ answer: { status: 200 } });
    const answer = await dispatchRequest(d, input('GET', '/v1/svc/claims/claim_1?expand=box'));
    expect(answer.status).toBe(200);
    expect(calls.forwarded).toEqual([{ service: 'registry', path: '/v1/svc/claims/claim_1?expand=box' }]);
    expect(claimsOf({ ...sandboxCaller, domain: 'avatars.example' })).toMatchObject({
      platformId: 'plat_1',
      platformDomain: 'avatars.example',
    });
    expect(claimsOf(sandboxCaller)).not.toHaveProperty('platformDomain');
  });

  it('when an Idempotency-Key is malformed or was used with another request, then the write is refused before it is forwarded', async () => {
    const bad = deps({});
    expect(
      await codeOf(
        dispatchRequest(bad.deps, input('POST', '/v1/svc/claims', { idempotencyKey: 'bad\u0001key' })),
      ),
    ).toBe('VALIDATION_ERROR');
    const reused = deps({ bind: 'different' });
    expect(
      await codeOf(
        dispatchRequest(reused.deps, input('POST', '/v1/svc/claims', { idempotencyKey: 'key-1' })),
      ),
    ).toBe('IDEMPOTENCY_CONFLICT');
    expect([...bad.calls.forwarded, ...reused.calls.forwarded]).toHaveLength(0);
  });

  it('when the gateway cannot bind a key (its database blinks), then the write is still forwarded with the key', async () => {
    const { deps: d, calls } = deps({ bind: new Error('connection terminated') });
    const answer = await dispatchRequest(d, input('POST', '/v1/svc/claims', { idempotencyKey: 'key-2' }));
    expect(answer.status).toBe(201);
    expect(calls.forwarded).toEqual([
      { service: 'registry', path: '/v1/svc/claims', idempotencyKey: 'key-2' },
    ]);
    expect(calls.released).toEqual([]);
  });

  it('when the answer is not replayable or the service was surely not reached, then the new binding is released; after a timeout it stays', async () => {
    const failed = deps({ answer: { status: 503 } });
    await dispatchRequest(failed.deps, input('POST', '/v1/svc/claims', { idempotencyKey: 'key-3' }));
    expect(failed.calls.released).toEqual(['key-3']);

    const unreachable = deps({
      answer: new AppError('SERVICE_UNAVAILABLE', 'registry is unavailable', {
        details: { reason: 'refused' },
      }),
    });
    expect(
      await codeOf(
        dispatchRequest(unreachable.deps, input('POST', '/v1/svc/claims', { idempotencyKey: 'key-4' })),
      ),
    ).toBe('SERVICE_UNAVAILABLE');
    expect(unreachable.calls.released).toEqual(['key-4']);

    const timedOut = deps({
      answer: new AppError('SERVICE_UNAVAILABLE', 'registry did not answer in time', {
        details: { reason: 'timeout' },
      }),
    });
    expect(
      await codeOf(
        dispatchRequest(timedOut.deps, input('POST', '/v1/svc/claims', { idempotencyKey: 'key-5' })),
      ),
    ).toBe('SERVICE_UNAVAILABLE');
    expect(timedOut.calls.released).toEqual([]);

    const boundBefore = deps({ bind: 'same', answer: { status: 500 } });
    await dispatchRequest(boundBefore.deps, input('POST', '/v1/svc/claims', { idempotencyKey: 'key-6' }));
    expect(boundBefore.calls.released).toEqual([]);
  });
});
