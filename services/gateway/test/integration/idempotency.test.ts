import { ManualClock } from '@svc/clock';
import { createDatabase } from '@svc/storage';
import { sleep, waitFor } from '@svc/test-kit';
import { startHarness, type Harness } from '../fixtures/gateway-harness';
import {
  LEDGER_ROUTES,
  startLedgerService,
  startResettingProxy,
  type LedgerService,
} from '../fixtures/idempotent-service';

const clock = new ManualClock('2026-11-22T10:00:00.000Z');
let h: Harness;
let ledger: LedgerService;
let proxy: Awaited<ReturnType<typeof startResettingProxy>>;
let key: string;

beforeAll(async () => {
  ledger = await startLedgerService(clock);
  proxy = await startResettingProxy(ledger.url);
  h = await startHarness({ clock, routes: LEDGER_ROUTES, serviceUrls: { REGISTRY_URL: proxy.url } });
  ({ key } = await h.platform('enterprise'));
});
afterAll(async () => {
  await h.stop();
  await proxy.stop();
  await ledger.stop();
});

const post = (path: string, idempotencyKey: string, body: unknown = {}) =>
  h.call(key, 'POST', path, body, { 'idempotency-key': idempotencyKey });

describe('Idempotency-Key through the gateway', () => {
  it('when a POST is repeated with the same key and body, then the service ran it once and the first answer is replayed', async () => {
    const before = await ledger.rows();
    const first = await post('/v1/svc/entries', 'k-1', { a: 1 });
    const again = await post('/v1/svc/entries', 'k-1', { a: 1 });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('content-type')).toContain('application/json');
    expect((await ledger.rows()) - before).toBe(1);
  });

  it('when the same key comes with another body or for another route, then 409 IDEMPOTENCY_CONFLICT and nothing reaches the service', async () => {
    await post('/v1/svc/entries', 'k-2', { a: 1 });
    const calls = ledger.calls();
    const otherBody = await post('/v1/svc/entries', 'k-2', { a: 2 });
    const otherRoute = await post('/v1/svc/other-entries', 'k-2', { a: 1 });
    for (const answer of [otherBody, otherRoute]) {
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    }
    expect(ledger.calls()).toBe(calls);
  });

  it('when the service answered 503, then the answer is not kept, it carries Retry-After, and a retry runs', async () => {
    const calls = ledger.calls();
    const first = await post('/v1/svc/busy', 'k-3');
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    const retry = await post('/v1/svc/busy', 'k-3');
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(ledger.calls() - calls).toBe(2);
  });

  it("when the gateway cannot record the key (its table fails), then the write still answers and a retry replays the service's answer: one entity", async () => {
    const gatewayDb = await createDatabase({ url: h.databaseUrl });
    try {
      await gatewayDb.exec('ALTER TABLE idempotency_bindings RENAME TO idempotency_bindings_away');
      const before = await ledger.rows();
      const first = await post('/v1/svc/entries', 'k-4', { b: 1 });
      await gatewayDb.exec('ALTER TABLE idempotency_bindings_away RENAME TO idempotency_bindings');
      const retry = await post('/v1/svc/entries', 'k-4', { b: 1 });
      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect((await ledger.rows()) - before).toBe(1);
    } finally {
      await gatewayDb
        .exec('ALTER TABLE IF EXISTS idempotency_bindings_away RENAME TO idempotency_bindings')
        .catch(() => undefined);
      await gatewayDb.close();
    }
  });

  it('when the connection resets after the service committed, then the gateway sends the keyed write once more and the platform gets the original answer, the write made once', async () => {
    const before = await ledger.rows();
    proxy.resetNextAnswer();
    const answered = await post('/v1/svc/entries', 'k-5', { c: 1 });
    expect(answered.status).toBe(201);
    expect(answered.headers.get('idempotent-replayed')).toBe('true');
    expect(answered.body.data.id).toMatch(/^ent_/);
    expect((await ledger.rows()) - before).toBe(1);
    const retry = await post('/v1/svc/entries', 'k-5', { c: 1 });
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).toBe(answered.body.data.id);
    expect((await ledger.rows()) - before).toBe(1);
  });

  it('when the connection resets twice in a row after the service committed, then 503 with Retry-After, and the retry returns the original answer', async () => {
    const before = await ledger.rows();
    proxy.resetNextAnswer();
    proxy.resetNextAnswer();
    const lost = await post('/v1/svc/entries', 'k-5b', { c: 2 });
    expect(lost.status).toBe(503);
    expect(lost.headers.get('retry-after')).not.toBeNull();
    expect((await ledger.rows()) - before).toBe(1);
    const retry = await post('/v1/svc/entries', 'k-5b', { c: 2 });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await ledger.rows()) - before).toBe(1);
  });

  it('when the call timed out after the service committed, then a retry gets the original answer once the service has answered', async () => {
    const before = await ledger.rows();
    const timedOut = await post('/v1/svc/slow-entries', 'k-6', { d: 1 });
    expect(timedOut.status).toBe(503);
    expect(timedOut.body.error.details.reason).toBe('timeout');
    // Meanwhile a retry is told the request is still running (never a second run).
    const early = await post('/v1/svc/slow-entries', 'k-6', { d: 1 });
    expect([409, 201]).toContain(early.status);
    const retry = await waitFor(
      async () => {
        const answer = await post('/v1/svc/slow-entries', 'k-6', { d: 1 });
        return answer.status === 201 ? answer : undefined;
      },
      { timeoutMs: 5000, intervalMs: 100, what: 'the recorded answer' },
    );
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await ledger.rows()) - before).toBe(1);
  });

  it('when 24 hours have passed, then the key may be used for a new request', async () => {
    await post('/v1/svc/entries', 'k-7', { a: 1 });
    clock.advance(24 * 3600 * 1000);
    const later = await post('/v1/svc/entries', 'k-7', { a: 5 });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when an unreadable key is sent, then 400 before anything runs', async () => {
    const calls = ledger.calls();
    const bad = await post('/v1/svc/entries', 'x'.repeat(300));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    await sleep(10);
    expect(ledger.calls()).toBe(calls);
  });
});
