import { randomUUID } from 'node:crypto';
import { createLogger } from '@svc/logger';
import { AmqpMessageBus, OutboxRelay, messagingMigrations } from '@svc/messaging';
import { createDatabase, runMigrations } from '@svc/storage';

/** An event as it waited in a service's outbox. */
export interface WaitingEvent {
  eventId: string;
  type: string;
  payload: unknown;
  occurredAt: Date;
}

export interface RelayRate {
  events: number;
  seconds: number;
  perSecond: number;
}

/** How long the relay alone may take before the baseline is given up (a broker gone again). */
const GIVE_UP_MS = 120_000;

/**
 * The drain's same-run baseline: what the relay bench measures (`bench/enforcement/run.ts`, an
 * OutboxRelay alone with the services' defaults publishing an outbox to a consumer of the bus: a
 * quorum queue, manual acks), here on the suite's PostgreSQL and broker with copies of the events
 * that waited, while the cluster runs beside it. A database, an exchange and a queue of its own:
 * the cluster's consumers never see the copies, and the suite's checks look only at the services'
 * queues.
 */
export async function relayAlone(options: {
  postgresUrl: string;
  database: string;
  amqpUrl: string;
  events: WaitingEvent[];
}): Promise<RelayRate> {
  const url = new URL(options.postgresUrl);
  url.pathname = `/${options.database}`;
  const logger = createLogger('faults-relay-baseline', { level: 'warn' });
  const tag = randomUUID().slice(0, 8);
  const db = await createDatabase({ url: url.toString(), applicationName: 'faults-relay-baseline' });
  let bus: AmqpMessageBus | undefined;
  let relay: OutboxRelay | undefined;
  try {
    await runMigrations(db, [messagingMigrations]);
    await db.query('TRUNCATE outbox');
    for (let i = 0; i < options.events.length; i += 1000) {
      const slice = options.events.slice(i, i + 1000);
      await db.query(
        `INSERT INTO outbox (event_id, type, payload, occurred_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::timestamptz[])`,
        [
          slice.map((e) => e.eventId),
          slice.map((e) => e.type),
          slice.map((e) => JSON.stringify(e.payload)),
          slice.map((e) => e.occurredAt),
        ],
      );
    }
    bus = await AmqpMessageBus.connect({
      url: options.amqpUrl,
      logger,
      exchange: `faults.relay-baseline.${tag}`,
      connectionName: 'faults-relay-baseline',
    });
    const consumed = new Set<string>();
    await bus.subscribe({
      queue: `faults.relay-baseline.${tag}`,
      patterns: ['#'],
      prefetch: 100,
      handler: async (envelope) => {
        consumed.add(envelope.id);
      },
    });
    relay = new OutboxRelay({ db, bus, logger, name: 'faults-relay-baseline' });
    const started = performance.now();
    relay.start();
    while (consumed.size < options.events.length) {
      if (performance.now() - started > GIVE_UP_MS)
        throw new Error(`the relay alone published ${consumed.size} of ${options.events.length} in 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    return { events: options.events.length, seconds, perSecond: options.events.length / seconds };
  } finally {
    await relay?.stop().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    await db.close().catch(() => undefined);
  }
}
