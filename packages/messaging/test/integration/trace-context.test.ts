import { Registry } from 'prom-client';
import {
  AmqpMessageBus,
  appendToOutbox,
  InProcessMessageBus,
  messagingMigrations,
  OutboxRelay,
  type MessageBus,
} from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import {
  currentTraceCarrier,
  inSpan,
  InMemorySpanExporter,
  SpanKind,
  startTelemetry,
  type Telemetry,
} from '@svc/telemetry';
import { infrastructure, uniqueSuffix, waitFor } from '@svc/test-kit';
import { AmqpAdmin } from '../amqp-admin';
import { anEvent, testLogger } from '../event-builder';

// The trace context of the transaction that writes an event goes with its outbox row, the relay
// publishes it as a span of that trace, and the consumer's handler runs in it: on RabbitMQ (in
// the message headers) and on the in-process bus alike. With tracing off nothing is stored or sent.

const suffix = uniqueSuffix();
const exchange = `test.tracing.${suffix}`;
const queues: string[] = [];
let amqpUrl: string;
let admin: AmqpAdmin;

beforeAll(async () => {
  amqpUrl = (await infrastructure()).amqpUrl;
  admin = await AmqpAdmin.open(amqpUrl);
}, 60_000);

afterAll(async () => {
  await admin.deleteTopology(queues, [exchange, `${exchange}.dlx`]);
  await admin.close();
});

interface Setup {
  db: Database;
  bus: MessageBus;
  relay: OutboxRelay;
  /** The traceparent each handled event saw, by event id (undefined: none). */
  seen: Map<string, string | undefined>;
  close(): Promise<void>;
}

async function setUp(kind: 'amqp' | 'in-process'): Promise<Setup> {
  const db = await createDatabase({ url: 'pglite://memory' });
  await runMigrations(db, [messagingMigrations]);
  const bus =
    kind === 'amqp'
      ? await AmqpMessageBus.connect({ url: amqpUrl, exchange, logger: testLogger() })
      : new InProcessMessageBus({ logger: testLogger() });
  const queue = `test.tracing.${kind}.${suffix}.${queues.length}`;
  queues.push(queue);
  const seen = new Map<string, string | undefined>();
  await bus.subscribe({
    queue,
    patterns: [`tracetest.${suffix}.*`],
    handler: async (envelope) => {
      seen.set(envelope.id, currentTraceCarrier()?.traceparent);
    },
  });
  const relay = new OutboxRelay({ db, bus, logger: testLogger(), registry: new Registry() });
  return {
    db,
    bus,
    relay,
    seen,
    close: async () => {
      await bus.close();
      await db.close();
    },
  };
}

async function storedTraceContext(db: Database, eventId: string): Promise<unknown> {
  const { rows } = await db.query<{ trace_context: unknown }>(
    'SELECT trace_context FROM outbox WHERE event_id = $1',
    [eventId],
  );
  return rows[0]?.trace_context;
}

describe('trace context through the outbox and the bus, tracing off', () => {
  it('when tracing is off, then the outbox row keeps no trace context and the consumer sees none', async () => {
    const setup = await setUp('in-process');
    try {
      const event = anEvent(`tracetest.${suffix}.untraced`);
      await appendToOutbox(setup.db, event);
      expect(await storedTraceContext(setup.db, event.id)).toBeNull();
      await setup.relay.publishPending();
      await waitFor(() => setup.seen.has(event.id), { what: 'the event handled' });
      expect(setup.seen.get(event.id)).toBeUndefined();
    } finally {
      await setup.close();
    }
  });
});

describe.each(['in-process', 'amqp'] as const)('trace context through the outbox and the %s bus', (kind) => {
  const spans = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let setup: Setup;
  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'messaging-test', exporter: spans });
    setup = await setUp(kind);
  }, 60_000);
  afterAll(async () => {
    await setup?.close();
    await telemetry?.shutdown();
  });

  it('when an event is written inside a span, then its consumer runs in the same trace, under the relay’s publish span', async () => {
    const event = anEvent(`tracetest.${suffix}.traced`);
    const traceId = await inSpan(
      'test',
      'POST /things',
      { kind: SpanKind.SERVER, parent: null },
      async (span) => {
        await appendToOutbox(setup.db, event);
        return span!.spanContext().traceId;
      },
    );
    expect(await storedTraceContext(setup.db, event.id)).toEqual({
      traceparent: expect.stringMatching(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`)),
    });

    // The relay runs later, from its own loop: no span is active there.
    await setup.relay.publishPending();
    const seen = await waitFor(() => setup.seen.get(event.id), {
      timeoutMs: 10_000,
      what: 'the event handled',
    });
    expect(seen.split('-')[1]).toBe(traceId);

    const inTrace = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const producer = inTrace.find((s) => s.kind === SpanKind.PRODUCER);
    const consumer = inTrace.find((s) => s.kind === SpanKind.CONSUMER);
    expect(producer?.name).toBe(`${event.type} publish`);
    expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
  });
});
