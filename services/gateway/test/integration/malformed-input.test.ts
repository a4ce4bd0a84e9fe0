import { ADMIN_TOKEN, startHarness, type Harness } from '../fixtures/gateway-harness';

// Issue #13's examples, each once: the gateway answers them itself with a 4xx and the envelope.
let h: Harness;
let key: string;

beforeAll(async () => {
  // The declared operations, no service deployed: whatever is refused here never left the gateway.
  h = await startHarness();
  ({ key } = await h.platform('standard'));
});
afterAll(async () => {
  await h.stop();
});

describe('gateway: malformed input', () => {
  it.each([
    ['/v1/svc/boxes/%E0%A4%A', 'path.id'],
    ['/v1/svc/claims/%00', 'path.id'],
    ['/v1/svc/claims/%ED%A0%80', 'path.id'],
    ['/licensing/terms/%zz', 'path.identity_id'],
    [`/v1/svc/licenses/${'a'.repeat(300)}`, 'path.id'],
  ])('when GET %s, then 400 VALIDATION_ERROR naming %s', async (path, field) => {
    const res = await h.call(key, 'GET', path);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  it('when a bad path comes without a key, then 401 first: nothing is told to an unauthenticated caller', async () => {
    const res = await h.call(undefined, 'GET', '/v1/svc/boxes/%E0%A4%A');

    expect(res.status).toBe(401);
  });

  it.each(['/admin/platforms/%zz', '/admin/keys/%E0%A4%A/rotate', '/admin/claims/%00/verify'])(
    "when the operator API gets %s, then 400 VALIDATION_ERROR, not express's decode failure",
    async (path) => {
      const method = path.endsWith('zz') ? 'GET' : 'POST';
      const res = await fetch(h.url + path, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const body = (await res.json()) as { error: { code: string } };

      expect(res.status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
    },
  );

  it('when a query filter holds a NUL, then 400 VALIDATION_ERROR naming it', async () => {
    const res = await h.admin('GET', '/admin/platforms?limit=%00');

    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('query.limit');
  });

  it('when a body is 10,000 levels deep, then 400 VALIDATION_ERROR (never a stack overflow)', async () => {
    const deep = `{"claimId":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;

    const res = await h.call(key, 'POST', '/v1/svc/boxes', deep);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('when a body says Content-Encoding: gzip but is plain, then 415 VALIDATION_ERROR', async () => {
    const res = await h.call(key, 'POST', '/v1/svc/claims', { name: 'Ada' }, { 'content-encoding': 'gzip' });

    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('when the operator sends text with a NUL or an unpaired surrogate, then 400 naming the field', async () => {
    const nul = await h.admin('POST', '/admin/platforms', { name: 'a\u0000b', plan: 'basic' });
    const surrogate = await h.admin('POST', '/admin/platforms', { name: 'Ada\ud800', plan: 'basic' });

    for (const res of [nul, surrogate]) {
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe('name');
    }
  });
});
