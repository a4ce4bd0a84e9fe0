import { z } from 'zod';
import { allOperations } from '@svc/contracts/catalogue';
import { IDENTITY_CHECK_TIMEOUT_MS } from '@svc/contracts/common';
import { RouteTable, routesFrom } from '../../src/domain/route-table';
import { isReplayable } from '@svc/service-kit';
import { BYTES_FINGERPRINT_PREFIX, requestFingerprintOfBytes } from '../../src/domain/idempotency';

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

  it.each([
    ['bad percent-encoding', '/v1/svc/licenses/%E0%A4%A', 'malformed percent-encoding'],
    ['a stray percent sign', '/v1/svc/licenses/%zz', 'malformed percent-encoding'],
    ['a NUL', '/v1/svc/licenses/lic_%00', 'expected an id'],
    ['a lone surrogate', '/v1/svc/licenses/%ED%A0%80', 'malformed percent-encoding'],
    ['a space', '/v1/svc/licenses/lic%201', 'expected an id'],
    ['over 100 characters', `/v1/svc/licenses/${'a'.repeat(101)}`, 'at most 100 characters'],
  ])(
    'when a path parameter has %s, then the match carries a VALIDATION_ERROR naming path.id',
    (_l, path, text) => {
      const matched = table.match('GET', path);

      expect(matched?.route.id).toBe('getLicense');
      expect(matched?.problem?.code).toBe('VALIDATION_ERROR');
      expect(matched?.problem?.details).toEqual({
        fields: [{ field: 'path.id', message: expect.stringContaining(text) as unknown }],
      });
    },
  );

  it('when a route declares its parameters, then its own schema decides', () => {
    const strict = new RouteTable([
      {
        id: 'avatar',
        method: 'GET',
        path: '/v1/svc/avatars/:id',
        service: 'enforcement',
        params: z.object({ id: z.string().regex(/^[a-z]+$/) }),
      },
    ]);

    expect(strict.match('GET', '/v1/svc/avatars/abc')?.problem).toBeUndefined();
    expect(strict.match('GET', '/v1/svc/avatars/ABC')?.problem?.code).toBe('VALIDATION_ERROR');
  });

  it('when a route has a bucket, then the match carries it', () => {
    expect(table.match('POST', '/v1/svc/licenses/lic_1/usage')?.route.bucket).toBe('usage-report');
  });
});

describe('idempotency rules', () => {
  it('when method, url or body bytes differ, then the fingerprint differs', () => {
    const bytes = (text: string) => Buffer.from(text);
    const base = requestFingerprintOfBytes('POST', '/v1/svc/claims', bytes('{"name":"A"}'));
    expect(base.startsWith(BYTES_FINGERPRINT_PREFIX)).toBe(true);
    expect(requestFingerprintOfBytes('POST', '/v1/svc/claims', bytes('{"name":"A"}'))).toBe(base);
    expect(requestFingerprintOfBytes('POST', '/v1/svc/claims', bytes('{"name":"B"}'))).not.toBe(base);
    // The bytes, not their meaning: the same JSON written otherwise is another request.
    expect(requestFingerprintOfBytes('POST', '/v1/svc/claims', bytes('{ "name": "A" }'))).not.toBe(base);
    expect(requestFingerprintOfBytes('PATCH', '/v1/svc/claims', bytes('{"name":"A"}'))).not.toBe(base);
    expect(requestFingerprintOfBytes('POST', '/v1/svc/claims?x=1', bytes('{"name":"A"}'))).not.toBe(base);
    expect(requestFingerprintOfBytes('POST', '/v1/svc/claims', undefined)).not.toBe(base);
  });

  // A 5xx is never kept for a key (docs/spec/contracts.md §7): the retry must be able to run or find the real answer.
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
    const declared = new RouteTable(routesFrom(allOperations));
    expect(declared.match('POST', '/v1/svc/identity/check')?.route.timeoutMs).toBe(IDENTITY_CHECK_TIMEOUT_MS);
    expect(declared.match('POST', '/identity/check')?.route.timeoutMs).toBe(IDENTITY_CHECK_TIMEOUT_MS);
    expect(IDENTITY_CHECK_TIMEOUT_MS).toBeLessThan(2000);
    expect(declared.match('POST', '/v1/svc/claims')?.route.timeoutMs).toBeUndefined();
  });
});

describe('operations for anyone', () => {
  const table = new RouteTable(routesFrom(allOperations));

  it('when another service declares a public GET, then it matches without a key, for GET and HEAD only', () => {
    expect(table.matchAnonymous('GET', '/.well-known/jwks.json')?.route.service).toBe('licensing');
    expect(table.matchAnonymous('HEAD', '/v1/svc/status-lists/1')?.route.id).toBe('getStatusList');
    expect(table.matchAnonymous('GET', '/v1/svc/transparency/tree-head')?.route.id).toBe('getTreeHead');
    expect(table.matchAnonymous('POST', '/v1/svc/status-lists/1')).toBeNull();
  });

  it('when the route is keyed, or the gateway’s own public one, then it is not anonymous', () => {
    expect(table.matchAnonymous('GET', '/v1/svc/licenses/lic_1/credential')).toBeNull();
    expect(table.matchAnonymous('GET', '/v1/svc/transparency/entries/3')).toBeNull();
    expect(table.matchAnonymous('GET', '/v1/svc/openapi.json')).toBeNull();
    expect(table.matchAnonymous('GET', '/v1/svc/claims')).toBeNull();
  });
});
