import { DeliveryRepository } from '../../src/data-access/delivery.repository';
import type { NewDelivery } from '../../src/domain/ports';
import { startHarness, startReceiver, type Harness } from '../fixtures/dispatcher-harness';

// The fan-out's one insert (ADR 0022) sends its rows as one JSON parameter: what comes back must
// be exactly what went in, in the order given, and a delivery already recorded is kept as it was.
// Each event's payload is stored once, however many endpoints it goes to (ADR 0036).

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let endpointId: string;

beforeAll(async () => {
  h = await startHarness();
  receiver = await startReceiver();
  const created = await h.call('plat_repoInsert000000001', 'POST', '/v1/svc/webhooks', { url: receiver.url });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  endpointId = created.body.data.id as string;
  later = new Date(h.clock.now().getTime() + 86_400_000);
});
afterAll(async () => {
  await h.stop();
  await receiver.close();
});

// A day ahead of the dispatcher's clock: not due yet, so the worker leaves the rows as inserted.
let later: Date;

function delivery(n: number, payload: string, traceContext: Record<string, string> | null): NewDelivery {
  return {
    id: `del_repoInsert${String(n).padStart(10, '0')}`,
    endpointId,
    platformId: 'plat_repoInsert000000001',
    eventId: `evt_repoInsert${String(n).padStart(10, '0')}`,
    eventType: 'grace_period.reminder',
    payload,
    test: n === 2,
    eventCreatedAt: new Date(later.getTime() + n),
    createdAt: later,
    traceContext,
  };
}

describe('recording the deliveries of a fan-out', () => {
  it('when a batch is inserted, then every field reads back as given, in the order given, and a repeated one is not inserted again', async () => {
    const repository = new DeliveryRepository();
    const payloads = [
      JSON.stringify({ quote: 'say "hi"', backslash: 'a\\b', newline: 'x\ny', unicode: 'Zoë 名前 🙂' }),
      '{"plain":true}',
      JSON.stringify({ escaped: '\\u0041 is not A', tab: '\t' }),
    ];
    const batch = [
      delivery(3, payloads[0] as string, {
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      }),
      delivery(1, payloads[1] as string, null),
      delivery(2, payloads[2] as string, null),
    ];

    expect(await repository.insertMany(h.dispatcher.db, batch)).toEqual(batch.map((d) => d.id));
    // The same endpoint and event again (a redelivered internal event), beside a new one.
    const again = { ...delivery(1, '{"changed":true}', null), id: 'del_repoInsert9999999999' };
    expect(await repository.insertMany(h.dispatcher.db, [again, delivery(4, '{}', null)])).toEqual([
      'del_repoInsert0000000004',
    ]);

    const { rows } = await h.dispatcher.db.query<{
      id: string;
      payload: string;
      test: boolean;
      event_id: string;
      event_created_at: Date;
      created_at: Date;
      next_attempt_at: Date;
      status: string;
      trace_context: Record<string, string> | null;
    }>(
      `SELECT id, payload, test, d.event_id, event_created_at, created_at, next_attempt_at, status, trace_context
       FROM webhook_deliveries AS d JOIN webhook_event_payloads USING (event_id)
       WHERE endpoint_id = $1 ORDER BY seq`,
      [endpointId],
    );
    expect(rows.map((r) => r.id)).toEqual([
      'del_repoInsert0000000003',
      'del_repoInsert0000000001',
      'del_repoInsert0000000002',
      'del_repoInsert0000000004',
    ]);
    expect(rows.slice(0, 3).map((r) => r.payload)).toEqual(payloads);
    expect(rows.map((r) => r.test)).toEqual([false, false, true, false]);
    expect(rows[0]?.trace_context).toEqual({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(rows[1]?.trace_context).toBeNull();
    expect(rows.map((r) => new Date(r.event_created_at).getTime() - later.getTime())).toEqual([3, 1, 2, 4]);
    for (const r of rows) {
      expect(new Date(r.created_at).getTime()).toBe(later.getTime());
      expect(new Date(r.next_attempt_at).getTime()).toBe(later.getTime());
      expect(r.status).toBe('pending');
    }
  });

  it('when an event goes to several endpoints, then its payload is stored once and each delivery reads it', async () => {
    const repository = new DeliveryRepository();
    const other = await h.call('plat_repoInsert000000001', 'POST', '/v1/svc/webhooks', { url: receiver.url });
    const payload = JSON.stringify({ shared: 'by both deliveries' });
    const toBoth = [
      { ...delivery(5, payload, null), id: 'del_repoInsertBoth000001' },
      {
        ...delivery(5, payload, null),
        id: 'del_repoInsertBoth000002',
        endpointId: other.body.data.id as string,
      },
    ];
    expect(await repository.insertMany(h.dispatcher.db, toBoth)).toHaveLength(2);

    const { rows } = await h.dispatcher.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_event_payloads WHERE event_id = $1',
      [toBoth[0]?.eventId],
    );
    expect(rows[0]?.n).toBe(1);
    const read = await repository.findMany(h.dispatcher.db, [
      'del_repoInsertBoth000001',
      'del_repoInsertBoth000002',
    ]);
    expect(read.map((d) => d.payload)).toEqual([payload, payload]);
  });
});
