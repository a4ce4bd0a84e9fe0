import { declaredOperations, IDENTITY_CHECK_TIMEOUT_MS } from '@svc/contracts';
import { RouteTable, routesFrom } from '../../src/domain/route-table';
import { isReplayable } from '@svc/service-kit';
import { requestFingerprint } from '../../src/domain/idempotency';

const table = new RouteTable([
  { id: 'getLicense', method: 'GET', path: '/v1/svc/licenses/:id', service: 'licensing' },
  { id: 'getRequest', method: 'GET', path: '/v1/svc/licenses/request/:id', service: 'licensing' },
  {
    id: 'report',
    method: 'POST',
    path: '/v1/svc/licenses/:id/usage',
    service: 'billing',
    bucket: 'usage-report',
  },
  {
    id: 'family2',
    method: 'GET',
    path: '/identity/status/:id',
    service: 'detection',
    upstreamPath: '/internal/identity-status/:id',
  },
]);

describe('route table', () => {
  it('when a path has parameters, then they are extracted and the owner found', () => {
    const m = table.match('GET', '/v1/svc/licenses/lic_123');
    expect(m?.route.id).toBe('getLicense');
    expect(m?.params).toEqual({ id: 'lic_123' });
    expect(m?.upstreamPath).toBe('/v1/svc/licenses/lic_123');
  });

  it('when a static segment could also be a parameter, then the more specific route wins', () => {
    expect(table.match('GET', '/v1/svc/licenses/request/req_1')?.route.id).toBe('getRequest');
  });

  it('when the method differs, then nothing matches but the path is known', () => {
    expect(table.match('DELETE', '/v1/svc/licenses/request/req_1')).toBeNull();
    expect(table.knowsPath('/v1/svc/licenses/request/req_1')).toBe(true);
    expect(table.match('GET', '/v1/svc/nothing')).toBeNull();
  });

  it('when an operation is translated, then the upstream path is filled in', () => {
    expect(table.match('GET', '/identity/status/claim_9')?.upstreamPath).toBe(
      '/internal/identity-status/claim_9',
    );
  });

  it('when a route has a bucket, then the match carries it', () => {
    expect(table.match('POST', '/v1/svc/licenses/lic_1/usage')?.route.bucket).toBe('usage-report');
  });
});

describe('idempotency rules', () => {
  it('when method, url or body differ, then the fingerprint differs', () => {
    const base = requestFingerprint('POST', '/v1/svc/claims', { name: 'A' });
    expect(requestFingerprint('POST', '/v1/svc/claims', { name: 'A' })).toBe(base);
    expect(requestFingerprint('POST', '/v1/svc/claims', { name: 'B' })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/v1/svc/claims', { name: 'A' })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/svc/claims?x=1', { name: 'A' })).not.toBe(base);
  });

  // A 5xx is never kept for a key (contracts.md §7): the retry must be able to run or find the real answer.
  it('when an answer is a 5xx or a refused rate limit, then it is not kept for replays', () => {
    expect(isReplayable(201)).toBe(true);
    expect(isReplayable(400)).toBe(true);
    expect(isReplayable(500)).toBe(false);
    expect(isReplayable(429)).toBe(false);
    expect(isReplayable(503)).toBe(false);
  });
});

describe('budgets of the declared routes', () => {
  it('when routes come from the declared operations, then the identity check fails fast and writes get the default budget', () => {
    const declared = new RouteTable(routesFrom(declaredOperations()));
    expect(declared.match('POST', '/v1/svc/identity/check')?.route.timeoutMs).toBe(IDENTITY_CHECK_TIMEOUT_MS);
    expect(declared.match('POST', '/identity/check')?.route.timeoutMs).toBe(IDENTITY_CHECK_TIMEOUT_MS);
    expect(IDENTITY_CHECK_TIMEOUT_MS).toBeLessThan(2000);
    expect(declared.match('POST', '/v1/svc/claims')?.route.timeoutMs).toBeUndefined();
  });
});
