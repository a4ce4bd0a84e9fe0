import { entityIdOf } from '@svc/contracts/catalogue';
import type { EventEnvelope } from '@svc/contracts/common';
import { kyselyOn, preparedStatement, sql, type Kysely, type Queryable } from '@svc/storage';
import type { DB } from './db.generated';
import { traceContextToStore } from './trace-context';

// Every event about an entity runs it: built and compiled once, a named prepared statement.
const nextEntityVersion = preparedStatement(
  'messaging_next_entity_version',
  (db: Kysely<DB>, input: { entityId: string }) =>
    db
      .insertInto('entityVersions')
      .values({ entityId: input.entityId, version: 1 })
      .onConflict((conflict) =>
        conflict.column('entityId').doUpdateSet({ version: sql<number>`entity_versions.version + 1` }),
      )
      .returning('version'),
);

// Every write of every service runs it: built and compiled once, whatever the number of events (they
// travel as arrays, in order). JSON goes as text and is cast in SQL, the same on pg and PGlite.
const insertEvents = preparedStatement(
  'messaging_append_outbox',
  (
    db: Kysely<DB>,
    input: {
      eventIds: string[];
      types: string[];
      payloads: string[];
      occurredAts: string[];
      trace: string | null;
    },
  ) =>
    db
      .insertInto('outbox')
      .columns(['eventId', 'type', 'payload', 'occurredAt', 'traceContext'])
      .expression((eb) =>
        eb
          .selectFrom(
            sql<{ eventId: string; type: string; payload: string; occurredAt: string; n: number }>`unnest(
              ${input.eventIds}::text[], ${input.types}::text[], ${input.payloads}::text[],
              ${input.occurredAts}::timestamptz[]) WITH ORDINALITY`.as<'e'>(
              sql`e (event_id, type, payload, occurred_at, n)`,
            ),
          )
          .select([
            'e.eventId',
            'e.type',
            sql<EventEnvelope>`e.payload::jsonb`.as('payload'),
            'e.occurredAt',
            sql<Record<string, string> | null>`${input.trace}::text::jsonb`.as('traceContext'),
          ])
          // Rows take their ids in the order the events were given.
          .orderBy('e.n'),
      ),
);

/**
 * Stamps an event with the next version of the entity it is about (ADR 0010). The counter row is
 * locked until the caller's transaction commits, so versions of one entity follow commit order.
 */
async function withEntityVersion(tx: Queryable, envelope: EventEnvelope): Promise<EventEnvelope> {
  const entityId = entityIdOf(envelope);
  if (entityId === null || envelope.entity !== undefined) return envelope;
  const { rows } = await nextEntityVersion(tx, { entityId });
  const row = rows[0];
  return { ...envelope, entity: { id: entityId, version: Number(row?.version ?? 1) } };
}

/**
 * Records events in the outbox inside the caller's transaction, so the state change and its
 * events commit (or roll back) together; the `OutboxRelay` publishes them afterwards. Each event
 * about an entity gets that entity's next version here (ADR 0010).
 */
export async function appendToOutbox(tx: Queryable, ...received: EventEnvelope[]): Promise<void> {
  if (received.length === 0) return;
  const envelopes: EventEnvelope[] = [];
  for (const envelope of received) envelopes.push(await withEntityVersion(tx, envelope));
  const trace = traceContextToStore();
  await insertEvents(tx, {
    eventIds: envelopes.map((envelope) => envelope.id),
    types: envelopes.map((envelope) => envelope.type),
    payloads: envelopes.map((envelope) => JSON.stringify(envelope)),
    occurredAts: envelopes.map((envelope) => envelope.occurredAt),
    trace: trace === null ? null : JSON.stringify(trace),
  });
}

/**
 * The version of the latest event written about an entity (0 when none was): what an owner sends
 * with a read-through answer (ADR 0010). Read it before the entity's state, so the state is at
 * least as new as the version.
 */
export async function currentEntityVersion(q: Queryable, entityId: string): Promise<number> {
  const row = await kyselyOn<DB>(q)
    .selectFrom('entityVersions')
    .select('version')
    .where('entityId', '=', entityId)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.version);
}
