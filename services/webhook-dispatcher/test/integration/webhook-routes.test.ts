import { startHarness, type Harness } from '../fixtures/dispatcher-harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const A = 'plat_routes_a';
const B = 'plat_routes_b';

describe('webhook endpoint routes', () => {
  it('when an endpoint is created, then it answers we_ id and a whsec_ secret once', async () => {
    const res = await h.call(A, 'POST', '/v1/svc/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['license.approved', 'grace_period.started'],
      description: 'main',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: expect.stringMatching(/^we_[0-9A-Za-z]{16,}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['grace_period.started', 'license.approved'],
      description: 'main',
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = res.body.data.id;
    const detail = await h.call(A, 'GET', `/v1/svc/webhooks/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.secret).toBeUndefined();
    const list = await h.call(A, 'GET', '/v1/svc/webhooks?limit=10');
    expect(list.body.meta).toEqual({ total: 1, limit: 10, offset: 0 });
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });

  it('when patched, rotated and deleted, then each answers as documented', async () => {
    const created = (await h.call(A, 'POST', '/v1/svc/webhooks', { url: 'http://127.0.0.1:9/a' })).body.data;
    expect(created.events).toEqual(['*']);
    const patched = await h.call(A, 'PATCH', `/v1/svc/webhooks/${created.id}`, {
      events: ['payment.due'],
      description: null,
      status: 'disabled',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      events: ['payment.due'],
      status: 'disabled',
      disabledReason: 'manual',
    });
    const enabled = await h.call(A, 'PATCH', `/v1/svc/webhooks/${created.id}`, { status: 'enabled' });
    expect(enabled.body.data).toMatchObject({ status: 'enabled', disabledReason: null });

    const rotated = await h.call(A, 'POST', `/v1/svc/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.body.data.previousSecretExpiresAt) - h.clock.now().getTime()).toBe(86_400_000);

    const deleted = await h.call(A, 'DELETE', `/v1/svc/webhooks/${created.id}`);
    expect(deleted.body.data).toEqual({ id: created.id, deleted: true });
    expect((await h.call(A, 'GET', `/v1/svc/webhooks/${created.id}`)).status).toBe(404);
  });
});

describe('webhook endpoint routes: errors', () => {
  it.each([
    [{ url: 'not a url' }, 'url'],
    [{ url: 'ftp://127.0.0.1/x' }, 'url'],
    [{ url: 'http://127.0.0.1/x', events: ['grace_period.cancelled'] }, 'events.0'],
    [{ url: 'http://127.0.0.1/x', events: [] }, 'events'],
    [{ events: ['*'] }, 'url'],
  ])('when the body is %j, then 400 VALIDATION_ERROR names %s', async (body, field) => {
    const res = await h.call(A, 'POST', '/v1/svc/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('when paging is out of range or a patch is empty, then 400', async () => {
    expect((await h.call(A, 'GET', '/v1/svc/webhooks?limit=101')).status).toBe(400);
    const created = (await h.call(A, 'POST', '/v1/svc/webhooks', { url: 'http://127.0.0.1:9/e' })).body.data;
    expect((await h.call(A, 'PATCH', `/v1/svc/webhooks/${created.id}`, {})).status).toBe(400);
    expect((await h.call(A, 'GET', `/v1/svc/webhooks/${created.id}/deliveries?offset=-1`)).status).toBe(400);
  });

  it('when the endpoint or delivery does not exist, then 404', async () => {
    expect((await h.call(A, 'GET', '/v1/svc/webhooks/we_missing0000000000')).status).toBe(404);
    const created = (await h.call(A, 'POST', '/v1/svc/webhooks', { url: 'http://127.0.0.1:9/f' })).body.data;
    const retry = await h.call(A, 'POST', `/v1/svc/webhooks/${created.id}/deliveries/del_nope/retry`);
    expect(retry.status).toBe(404);
  });
});

describe('webhook endpoint routes: security', () => {
  it('when another platform uses an endpoint id, then every route answers 404', async () => {
    const mine = (await h.call(A, 'POST', '/v1/svc/webhooks', { url: 'http://127.0.0.1:9/s' })).body.data;
    const calls: [string, string, unknown?][] = [
      ['GET', `/v1/svc/webhooks/${mine.id}`],
      ['PATCH', `/v1/svc/webhooks/${mine.id}`, { description: 'x' }],
      ['DELETE', `/v1/svc/webhooks/${mine.id}`],
      ['POST', `/v1/svc/webhooks/${mine.id}/rotate-secret`],
      ['GET', `/v1/svc/webhooks/${mine.id}/deliveries`],
      ['POST', `/v1/svc/webhooks/${mine.id}/deliveries/del_x/retry`],
      ['POST', '/v1/svc/webhooks/test', { endpointId: mine.id }],
    ];
    for (const [method, path, body] of calls) {
      const res = await h.call(B, method, path, body);
      expect({ path, method, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        method,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
    expect((await h.call(B, 'GET', '/v1/svc/webhooks')).body.meta.total).toBe(0);
    expect((await h.call(A, 'GET', `/v1/svc/webhooks/${mine.id}`)).status).toBe(200);
  });

  it('when no internal token is sent, then 401', async () => {
    const res = await fetch(`${h.dispatcher.url}/v1/svc/webhooks`);
    expect(res.status).toBe(401);
  });
});

describe('URL policy', () => {
  it('when private fetches are not allowed, then a private or loopback URL is refused naming url', async () => {
    const strict = await startHarness({ env: { SVC_ALLOW_PRIVATE_FETCH: 'false' } });
    try {
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://169.254.169.254/latest',
        'http://localhost/x',
        'http://[::1]/x',
      ]) {
        const res = await strict.call(A, 'POST', '/v1/svc/webhooks', { url });
        expect(res.status).toBe(400);
        expect(res.body.error.details.fields[0].field).toBe('url');
      }
    } finally {
      await strict.stop();
    }
  });

  it('when the deployment is production, then http is refused', async () => {
    const production = await startHarness({
      env: { SVC_ENVIRONMENT: 'production', INTERNAL_JWT_SECRET: 'test-internal-secret-0123456789-abcdef' },
    });
    try {
      const res = await production.call(A, 'POST', '/v1/svc/webhooks', { url: 'http://127.0.0.1:9/x' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0]).toEqual({
        field: 'url',
        message: expect.stringContaining('https'),
      });
    } finally {
      await production.stop();
    }
  });
});
