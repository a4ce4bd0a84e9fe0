import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import {
  InMemorySpanExporter,
  SpanKind,
  startTelemetry,
  type ReadableSpan,
  type Telemetry,
} from '@svc/telemetry';
import { requestJson, waitFor } from '@svc/test-kit';
import { embeddedConfigSchema, startEmbedded, type RunningEmbedded } from '../../src';

// One public write followed through every hop it causes, with tracing on (an in-memory exporter
// instead of OTLP): the gateway -> licensing over HTTP (traceparent) -> licensing.request.approved
// through the outbox and the bus -> the webhook dispatcher's consumer -> the delivery row -> the
// POST to the platform's endpoint. Every span of it carries the trace id the gateway started.

const spans = new InMemorySpanExporter();
let telemetry: Telemetry;
let running: RunningEmbedded;
let receiver: Server;
let receiverUrl: string;
const received: { traceparent: string | undefined; body: string }[] = [];
const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tracing-'));

beforeAll(async () => {
  telemetry = startTelemetry({ serviceName: 'embedded', exporter: spans });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const traceparent = req.headers.traceparent;
      received.push({
        traceparent: typeof traceparent === 'string' ? traceparent : undefined,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const config = loadConfig(embeddedConfigSchema, {
    PORT: '0',
    METRICS_PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: 'adm_tracing_test_0123456789abcdef',
    LOG_LEVEL: 'silent',
  });
  running = await startEmbedded(config, createLogger('embedded', { level: 'silent' }));
}, 300_000);

afterAll(async () => {
  await running?.stop();
  await telemetry?.shutdown();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const attribute = (span: ReadableSpan, name: string): unknown => span.attributes[name];

describe('tracing across services (embedded, in-memory exporter)', () => {
  it('when a platform requests a license through the gateway, then the services, the event and the webhook POST share one trace id', async () => {
    const gw = running.url;
    const owner = running.sandboxKey;
    const platform = await requestJson(gw, running.adminToken, 'POST', '/admin/platforms', {
      name: 'Traced Avatars',
      plan: 'standard',
    });
    const licensee = (
      await requestJson(gw, running.adminToken, 'POST', `/admin/platforms/${platform.body.data.id}/keys`, {})
    ).body.data.key as string;
    const hook = await requestJson(gw, licensee, 'POST', '/v1/svc/webhooks', {
      url: receiverUrl,
      events: ['license.approved'],
    });
    expect(hook.status).toBe(201);

    const claim = await requestJson(gw, owner, 'POST', '/v1/svc/claims', {
      name: 'Imogen Qtracington',
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/reference.jpg' }],
    });
    const claimId = claim.body.data.id as string;
    await requestJson(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {});
    const box = await requestJson(gw, owner, 'POST', '/v1/svc/boxes', {
      claimId,
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
    });
    expect(box.status).toBe(201);

    const requested = await requestJson(gw, licensee, 'POST', '/v1/svc/licenses/request', {
      boxId: box.body.data.id,
      tier: 'personal',
      useCase: 'Avatar chat',
      acceptGuidelines: true,
    });
    expect(requested.status).toBe(201);
    expect(requested.body.data.status).toBe('approved');
    const requestId = requested.headers.get('x-request-id');

    // The gateway's span of that request starts the trace (it ignores a client's traceparent);
    // the request id it forwards is on licensing's span too.
    const edge = spans
      .getFinishedSpans()
      .find(
        (s) =>
          s.kind === SpanKind.SERVER &&
          attribute(s, 'svc.request_id') === requestId &&
          attribute(s, 'svc.service') === 'gateway',
      );
    expect(edge).toBeDefined();
    expect(edge!.parentSpanContext).toBeUndefined();
    expect(attribute(edge!, 'http.route')).toBe('requestLicense');
    expect(attribute(edge!, 'svc.platform_id')).toBe(platform.body.data.id);
    const traceId = edge!.spanContext().traceId;

    const delivered = await waitFor(() => received.find((r) => r.body.includes('"license.approved"')), {
      timeoutMs: 20_000,
      what: 'the license.approved webhook',
    });
    // The receiver is told the trace too (W3C traceparent: 00-<trace id>-<span id>-<flags>).
    expect(delivered.traceparent?.split('-')[1]).toBe(traceId);

    const inTrace = await waitFor(
      () => {
        const found = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
        return found.some((s) => s.name === 'webhook license.approved') ? found : undefined;
      },
      { timeoutMs: 10_000, what: 'the webhook span' },
    );
    const names = inTrace.map((s) => `${SpanKind[s.kind]} ${s.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'SERVER POST requestLicense',
        'CLIENT POST licensing',
        'PRODUCER licensing.request.approved publish',
        'CONSUMER webhook-dispatcher.platform-events process',
        'CLIENT webhook license.approved',
      ]),
    );
    // Two SERVER spans of requestLicense: the gateway's and licensing's, one under the other.
    const servers = inTrace.filter((s) => s.kind === SpanKind.SERVER && s.name === 'POST requestLicense');
    expect(servers.map((s) => attribute(s, 'svc.service')).sort()).toEqual(['gateway', 'licensing']);
  }, 120_000);
});

// The alert rules and the dashboard must only name metrics the code exports: a renamed metric
// would silently turn an alert into one that never fires.
const MONITORING = path.resolve(__dirname, '../../../../k8s/monitoring');
const PROMQL_FUNCTIONS = new Set(['histogram_quantile', 'label_values']);

/** The snake_case names a rules or dashboard file mentions outside its comments (metric names). */
function metricNamesIn(file: string): Set<string> {
  const text = readFileSync(path.join(MONITORING, file), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  const names = new Set<string>();
  for (const match of text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g))
    if (!PROMQL_FUNCTIONS.has(match[0])) names.add(match[0]);
  return names;
}

/** Every series name a /metrics text exposes, histogram series (_bucket, _count, _sum) included. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(name! + suffix);
  }
  return names;
}

describe('monitoring (k8s/monitoring) against what the services export', () => {
  it('when the services are scraped, then every metric the alert rules and the dashboard name exists', async () => {
    const scrapes = [
      running.gateway.metricsUrl,
      ...Object.values(running.serviceUrls).map((u) => `${u}/metrics`),
    ];
    const available = new Set<string>();
    for (const url of scrapes)
      for (const name of exported(await (await fetch(url)).text())) available.add(name);

    const named = new Set([
      ...metricNamesIn('prometheus-rules.yaml'),
      ...metricNamesIn('dashboards/svc-overview.json'),
    ]);
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((name) => !available.has(name))).toEqual([]);
  });

  it('when /metrics is asked for on the public port of the gateway, then it is not served; its metrics port serves it', async () => {
    const publicPort = await fetch(`${running.url}/metrics`);
    expect(publicPort.status).toBe(404);
    const own = await fetch(running.gateway.metricsUrl);
    expect(own.status).toBe(200);
    expect(await own.text()).toMatch(
      /http_requests_total\{method="POST",route="requestLicense",status="201"\} 1/,
    );
  });
});
