import { paymentDue } from '@svc/contracts/billing';
import { gracePeriodStarted } from '@svc/contracts/enforcement';
import { licenseRequestApproved } from '@svc/contracts/licensing';
import { refuseConnections, waitFor } from '@svc/test-kit';
import { Webhook } from 'standardwebhooks';
import { startHarness, startReceiver, type Harness } from '../fixtures/dispatcher-harness';

// Real PostgreSQL, local receivers on 127.0.0.1 (SVC_ALLOW_PRIVATE_FETCH), sandbox schedule
// (divided by 60: 83 ms, 5 s, 30 s, ...) and a manual clock moved to trigger the retries.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

let seq = 0;
function platform(): string {
  seq += 1;
  return `plat_delivery_${seq}`;
}

function gpStarted(platformId: string) {
  const now = h.clock.now();
  return gracePeriodStarted.create(
    {
      gracePeriodId: `gp_${seq}`,
      violationId: 'viol_1',
      boxId: 'box_1',
      claimId: 'claim_1',
      identityName: 'Ada',
      boxOwnerPlatformId: 'plat_owner',
      policy: 'LICENSE',
      status: 'active',
      startedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 86_400_000).toISOString(),
      daysRemaining: 30,
      avatarIds: ['av_1'],
    },
    { occurredAt: now, platformId },
  );
}

function payment(platformId: string, cents = 1000) {
  return paymentDue.create(
    {
      paymentId: `pay_${cents}`,
      licenseId: 'lic_1',
      boxId: 'box_1',
      period: '2026-01',
      amountCents: cents,
      currency: 'USD',
      recipient: 'plat_owner',
      payerPlatformId: platformId,
      dueDate: h.clock.now().toISOString(),
    },
    { occurredAt: h.clock.now(), platformId },
  );
}

async function register(platformId: string, url: string, events?: string[]) {
  const res = await h.call(platformId, 'POST', '/v1/svc/webhooks', { url, ...(events ? { events } : {}) });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

async function deliveries(platformId: string, endpointId: string) {
  return (await h.call(platformId, 'GET', `/v1/svc/webhooks/${endpointId}/deliveries`)).body.data as any[];
}

function headersOf(r: { headers: Record<string, unknown> }): Record<string, string> {
  return {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
}

describe('delivering events', () => {
  it('when a grace period starts, then its three public events arrive signed, once each, even if redelivered', async () => {
    const p = platform();
    const receiver = await startReceiver();
    const filtered = await startReceiver();
    try {
      const endpoint = await register(p, receiver.url);
      await register(p, filtered.url, ['license.approved']);
      const envelope = gpStarted(p);
      await h.bus.publish(envelope);
      await waitFor(() => receiver.received.length >= 3, { what: 'three deliveries' });
      await h.bus.publish(envelope); // a redelivery of the same internal event
      await h.bus.publish({ ...envelope, id: envelope.id }); // and again
      await new Promise((r) => setTimeout(r, 150));
      expect(receiver.received).toHaveLength(3);
      const wh = new Webhook(endpoint.secret);
      const bodies = receiver.received.map((r) => wh.verify(r.body, headersOf(r)) as any);
      expect(bodies.map((b) => b.type ?? b.event).sort()).toEqual([
        'boxing.created',
        'boxing.grace_started',
        'grace_period.started',
      ]);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(bodies.map((b) => b.id));
      expect(filtered.received).toHaveLength(0);
      const list = await deliveries(p, endpoint.id);
      expect(list).toHaveLength(3);
      expect(list[0]).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null });
      expect(list[0].attempts[0]).toMatchObject({ number: 1, outcome: 'succeeded', responseStatus: 200 });
    } finally {
      await receiver.close();
      await filtered.close();
    }
  });

  it('when the database goes away between the 200 and its record, then the outcome is kept and nothing is sent twice', async () => {
    const p = platform();
    let outage: Promise<{ reopen(): Promise<void> }> | undefined;
    // The first delivery closes the dispatcher's database just before it is answered 200.
    const receiver = await startReceiver((_req, res) => {
      outage ??= refuseConnections(h.databaseUrl);
      void outage.then(() => res.writeHead(200).end('ok'));
    });
    try {
      const endpoint = await register(p, receiver.url, ['grace_period.started']);
      await h.bus.publish(gpStarted(p));
      await waitFor(() => outage, { what: 'the first delivery' });
      await new Promise((r) => setTimeout(r, 1500));
      await (await outage!).reopen();
      await waitFor(
        async () => {
          const list = await deliveries(p, endpoint.id).catch(() => []);
          return list.length === 1 && list[0].status === 'succeeded' ? list : undefined;
        },
        { what: 'the delivery recorded as succeeded', timeoutMs: 30_000 },
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toHaveLength(1);
    } finally {
      if (outage !== undefined) await (await outage).reopen();
      await receiver.close();
    }
  }, 45_000);

  it('when the endpoint fails and then recovers, then the delivery is retried on the schedule and succeeds', async () => {
    const p = platform();
    const receiver = await startReceiver((_req, res, n) =>
      n <= 2 ? res.writeHead(500).end(`{"error":"database down (${n})"}`) : res.writeHead(200).end('ok'),
    );
    try {
      const endpoint = await register(p, receiver.url, ['payment.due']);
      await h.bus.publish(payment(p));
      await waitFor(() => receiver.received.length === 1);
      let list = await waitFor(async () => {
        const l = await deliveries(p, endpoint.id);
        return l[0]?.attemptCount === 1 ? l : undefined;
      });
      expect(list[0]).toMatchObject({ status: 'pending', lastResponseStatus: 500, lastError: 'HTTP 500' });
      expect(list[0].nextAttemptAt).not.toBeNull();
      // Sandbox: 5 s / 60 ≈ 83 ms (± 10 %), then 5 min / 60 = 5 s.
      await new Promise((r) => setTimeout(r, 100));
      expect(receiver.received).toHaveLength(1); // the clock has not moved
      h.clock.advance(100);
      await waitFor(() => receiver.received.length === 2, { what: 'second attempt' });
      // Move the clock only once the second attempt is recorded: its retry is scheduled from "now".
      await waitFor(async () => (await deliveries(p, endpoint.id))[0]?.attemptCount === 2, {
        what: 'second attempt recorded',
      });
      h.clock.advance(5_600);
      await waitFor(() => receiver.received.length === 3, { what: 'third attempt' });
      list = await waitFor(async () => {
        const l = await deliveries(p, endpoint.id);
        return l[0]?.status === 'succeeded' ? l : undefined;
      });
      expect(list[0].attempts.map((a: any) => [a.outcome, a.responseStatus])).toEqual([
        ['failed', 500],
        ['failed', 500],
        ['succeeded', 200],
      ]);
      expect(list[0].attempts[0].nextRetryAt).not.toBeNull();
      // What the receiver answered each time, and what was sent (#32): the developer's view of why.
      expect(list[0].attempts.map((a: any) => a.responseBody)).toEqual([
        '{"error":"database down (1)"}',
        '{"error":"database down (2)"}',
        'ok',
      ]);
      expect(list[0].payload).toEqual(JSON.parse(receiver.received[0]!.body));
      // The same webhook-id on every attempt: receivers dedupe by it.
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('when the endpoint hangs, then the attempt times out and is retried, and other platforms are not held up', async () => {
    const slow = platform();
    const other = platform();
    const hanging = await startReceiver((_req, res, n) => {
      if (n > 1) res.writeHead(204).end();
    });
    const fast = await startReceiver();
    try {
      const endpoint = await register(slow, hanging.url, ['payment.due']);
      await register(other, fast.url, ['payment.due']);
      await h.bus.publish(payment(slow));
      await waitFor(() => hanging.received.length === 1);
      const started = performance.now();
      await h.bus.publish(payment(other));
      await waitFor(() => fast.received.length === 1, { what: 'the other platform' });
      expect(performance.now() - started).toBeLessThan(250); // not behind the 300 ms timeout
      const list = await waitFor(async () => {
        const l = await deliveries(slow, endpoint.id);
        return l[0]?.attemptCount === 1 ? l : undefined;
      });
      expect(list[0].attempts[0].error).toMatch(/^timeout/);
      expect(list[0].attempts[0].durationMs).toBeGreaterThanOrEqual(250);
      h.clock.advance(100);
      await waitFor(async () => (await deliveries(slow, endpoint.id))[0]?.status === 'succeeded', {
        what: 'the retry',
      });
    } finally {
      hanging.server.closeAllConnections();
      await hanging.close();
      await fast.close();
    }
  });

  it('when the endpoint answers 410, then it is disabled at once and the platform hears of it on another endpoint', async () => {
    const p = platform();
    const gone = await startReceiver((_req, res) => res.writeHead(410).end());
    const watcher = await startReceiver();
    try {
      const endpoint = await register(p, gone.url, ['payment.due']);
      const other = await register(p, watcher.url, ['webhook.endpoint_disabled']);
      await h.bus.publish(payment(p));
      await waitFor(() => watcher.received.length === 1, { what: 'endpoint_disabled event' });
      const detail = (await h.call(p, 'GET', `/v1/svc/webhooks/${endpoint.id}`)).body.data;
      expect(detail).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
      const body = new Webhook(other.secret).verify(
        watcher.received[0]!.body,
        headersOf(watcher.received[0]!),
      ) as any;
      expect(body).toMatchObject({
        type: 'webhook.endpoint_disabled',
        data: { endpointId: endpoint.id, reason: 'gone' },
      });
      const list = await deliveries(p, endpoint.id);
      expect(list[0]).toMatchObject({ status: 'failed', lastResponseStatus: 410 });
      // Nothing more goes to a disabled endpoint.
      await h.bus.publish(payment(p, 2000));
      await new Promise((r) => setTimeout(r, 100));
      expect(gone.received).toHaveLength(1);
      expect((await h.call(p, 'POST', '/v1/svc/webhooks/test', { endpointId: endpoint.id })).status).toBe(
        409,
      );
    } finally {
      await gone.close();
      await watcher.close();
    }
  });

  // #32, Svix's bar: an endpoint that was down gets what it missed in one call.
  it('when an endpoint that failed is enabled again and its failed deliveries since a time are replayed, then each is sent once more and succeeds', async () => {
    const p = platform();
    const since = h.clock.now().toISOString();
    const receiver = await startReceiver((_req, res, n) => res.writeHead(n === 1 ? 410 : 200).end());
    try {
      const endpoint = await register(p, receiver.url, ['payment.due']);
      await h.bus.publish(payment(p, 3100));
      await waitFor(async () => (await deliveries(p, endpoint.id))[0]?.status === 'failed', {
        what: 'the delivery failed for good (410)',
      });
      const replay = (body: unknown) => h.call(p, 'POST', `/v1/svc/webhooks/${endpoint.id}/replay`, body);
      // Disabled: nothing can be replayed until it is enabled again.
      expect((await replay({ since })).status).toBe(409);
      expect(
        (await h.call(p, 'PATCH', `/v1/svc/webhooks/${endpoint.id}`, { status: 'enabled' })).status,
      ).toBe(200);
      const bad = await replay({ since: 'yesterday' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.fields[0].field).toBe('since');

      const replayed = await replay({ since });
      expect(replayed.status).toBe(202);
      expect(replayed.body.data).toEqual({ endpointId: endpoint.id, since, queued: 1, more: false });
      await waitFor(() => receiver.received.length === 2, { what: 'the replayed attempt' });
      const list = await waitFor(async () => {
        const l = await deliveries(p, endpoint.id);
        return l[0]?.status === 'succeeded' ? l : undefined;
      });
      expect(list[0].attempts.map((a: any) => [a.outcome, a.responseStatus])).toEqual([
        ['failed', 410],
        ['succeeded', 200],
      ]);
      // Nothing failed is left: a second replay queues nothing; a later `since` matches nothing.
      expect((await replay({ since })).body.data).toMatchObject({ queued: 0, more: false });
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  it('when a secret is rotated, then deliveries carry both signatures and either secret verifies', async () => {
    const p = platform();
    const receiver = await startReceiver();
    try {
      const endpoint = await register(p, receiver.url);
      const rotated = (await h.call(p, 'POST', `/v1/svc/webhooks/${endpoint.id}/rotate-secret`)).body.data;
      const test = await h.call(p, 'POST', '/v1/svc/webhooks/test', {
        endpointId: endpoint.id,
        type: 'license.approved',
      });
      expect(test.status).toBe(202);
      expect(test.body.data).toMatchObject({ test: true, eventType: 'license.approved', status: 'pending' });
      await waitFor(() => receiver.received.length === 1);
      const r = receiver.received[0]!;
      expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
      const body = new Webhook(rotated.secret).verify(r.body, headersOf(r)) as any;
      expect(new Webhook(endpoint.secret).verify(r.body, headersOf(r))).toEqual(body);
      expect(body).toMatchObject({
        event: 'license.approved',
        test: true,
        data: { license_id: expect.any(String) },
      });

      // Manual re-send: one more attempt of the same delivery.
      const retried = await h.call(
        p,
        'POST',
        `/v1/svc/webhooks/${endpoint.id}/deliveries/${test.body.data.id}/retry`,
      );
      expect(retried.status).toBe(202);
      await waitFor(() => receiver.received.length === 2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(r.headers['webhook-id']);
    } finally {
      await receiver.close();
    }
  });

  it('when the dispatcher restarts with deliveries pending, then the new instance sends them', async () => {
    const p = platform();
    let up = false;
    const receiver = await startReceiver((_req, res) => res.writeHead(up ? 200 : 503).end());
    try {
      const endpoint = await register(p, receiver.url, ['license.approved']);
      await h.bus.publish(
        licenseRequestApproved.create(
          {
            requestId: 'req_1',
            boxId: 'box_1',
            claimId: 'claim_1',
            identityName: 'Ada',
            tier: 'creator',
            licenseePlatformId: p,
            boxOwnerPlatformId: 'plat_owner',
            submittedAt: h.clock.now().toISOString(),
            licenseId: 'lic_restart',
            approvedAt: h.clock.now().toISOString(),
            automatic: true,
          },
          { occurredAt: h.clock.now(), platformId: p },
        ),
      );
      await waitFor(async () => (await deliveries(p, endpoint.id))[0]?.attemptCount === 1);
      await h.restart();
      up = true;
      h.clock.advance(100);
      await waitFor(() => receiver.received.length === 2, { what: 'delivery by the new instance' });
      const list = await waitFor(async () => {
        const l = await deliveries(p, endpoint.id);
        return l[0]?.status === 'succeeded' ? l : undefined;
      });
      expect(list[0].attempts).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});

describe('disabling an endpoint that fails for days', () => {
  it('when an endpoint has failed without success past the threshold, then it is disabled (failing)', async () => {
    const p = platform();
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end());
    try {
      const endpoint = await register(p, receiver.url, ['payment.due']);
      await h.bus.publish(payment(p, 1));
      await waitFor(async () => (await deliveries(p, endpoint.id))[0]?.attemptCount === 1);
      // Three days / 60 = 72 minutes in sandbox.
      h.clock.advance(73 * 60_000);
      await waitFor(
        async () =>
          (await h.call(p, 'GET', `/v1/svc/webhooks/${endpoint.id}`)).body.data.status === 'disabled',
        {
          what: 'disabled',
        },
      );
      const detail = (await h.call(p, 'GET', `/v1/svc/webhooks/${endpoint.id}`)).body.data;
      expect(detail.disabledReason).toBe('failing');
      const reenabled = await h.call(p, 'PATCH', `/v1/svc/webhooks/${endpoint.id}`, { status: 'enabled' });
      expect(reenabled.body.data.status).toBe('enabled');
    } finally {
      await receiver.close();
    }
  });
});
