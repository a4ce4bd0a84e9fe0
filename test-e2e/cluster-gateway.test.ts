import { startTestCluster, type TestCluster } from '@svc/test-kit';
import pg from 'pg';
import { unwrap } from '@svc/sdk';
import { call, expectStatus, ROOT, sdkFor } from './helpers';

// The cluster mode: each service its own process, on PostgreSQL (a database per service, created on
// start) and RabbitMQ — from testcontainers when Docker is present, else the machine's services.
// Calls go through @svc/sdk; the few that ask for a path the OpenAPI document does not have (how the
// gateway answers an unknown route) stay raw, since the typed client can only name its paths.
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    rootDir: ROOT,
    output: 'silent',
  });
}, 60_000);

afterAll(async () => {
  await cluster?.teardown();
});

describe('cluster mode through the gateway', () => {
  it('when the gateway starts on PostgreSQL, then it created its own database and is ready', async () => {
    const client = new pg.Client({ connectionString: cluster.postgresUrl });
    await client.connect();
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      `${cluster.databasePrefix}gateway`,
    ]);
    await client.end();
    expect(rowCount).toBe(1);
    const ready = await fetch(`${cluster.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('when the operator registers a platform and issues a key, then the key authenticates with rate headers', async () => {
    const operator = sdkFor(cluster.gatewayUrl, cluster.adminToken);
    const { data: platform } = await expectStatus(
      201,
      operator.POST('/admin/platforms', { body: { name: 'E2E Avatars', plan: 'basic' } }),
    );
    const { data: key } = await expectStatus(
      201,
      operator.POST('/admin/platforms/{id}/keys', { params: { path: { id: platform.id } }, body: {} }),
    );
    const res = await call(cluster.gatewayUrl, key.key, 'GET', '/v1/svc/not-a-route');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('when the bootstrap key is used, then it belongs to the sandbox plan', async () => {
    const res = await call(cluster.gatewayUrl, cluster.bootstrapKey, 'GET', '/v1/svc/not-a-route');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('when keys are wrong, then each auth error has its code', async () => {
    // Raw: the key is checked before the route, so an unknown path shows it (the SDK names only real ones).
    expect((await call(cluster.gatewayUrl, undefined, 'GET', '/v1/svc/x')).body.error.code).toBe(
      'UNAUTHORIZED',
    );
    const live = `svc_live_${'a'.repeat(40)}`;
    expect((await call(cluster.gatewayUrl, live, 'GET', '/v1/svc/x')).body.error.code).toBe(
      'WRONG_ENVIRONMENT',
    );
  });

  it('when the gateway process restarts, then platforms and keys are still there', async () => {
    const operator = sdkFor(cluster.gatewayUrl, cluster.adminToken);
    const { data: platform } = await unwrap(
      operator.POST('/admin/platforms', { body: { name: 'Survivor', plan: 'sandbox' } }),
    );
    const { data: key } = await unwrap(
      operator.POST('/admin/platforms/{id}/keys', { params: { path: { id: platform.id } }, body: {} }),
    );
    await cluster.stopProcess('gateway');
    await cluster.startProcess('gateway');
    const res = await call(cluster.gatewayUrl, key.key, 'GET', '/v1/svc/not-a-route');
    expect(res.status).toBe(404);
  }, 60_000);

  it('when the dashboard is opened on the cluster gateway, then its page and a deep link are served from the API origin', async () => {
    for (const path of ['/dashboard', '/dashboard/claims']) {
      // A browser's page request, not an API call: raw on purpose.
      const page = await fetch(`${cluster.gatewayUrl}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('<div id="root"></div>');
    }
  });

  it('when the OpenAPI document is fetched, then it is served without a key', async () => {
    const document = await expectStatus(
      200,
      sdkFor(cluster.gatewayUrl, undefined).GET('/v1/svc/openapi.json'),
    );
    expect(document.openapi).toBe('3.1.0');
  });

  it('when /metrics is scraped on the metrics port, then the gateway reports RED metrics per operation id', async () => {
    await unwrap(sdkFor(cluster.gatewayUrl, cluster.bootstrapKey).GET('/v1/svc/claims'));
    const text = await (await fetch(cluster.gatewayMetricsUrl)).text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="listClaims",status="200"\} \d+/);
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="listClaims",status="200"\} \d+/,
    );
  });

  it('when /metrics is asked for on the public port, then it is not there', async () => {
    const res = await fetch(`${cluster.gatewayUrl}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('http_requests_total');
  });
});
