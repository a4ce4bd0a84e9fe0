import { entityIdOf, type EventEnvelope } from '@svc/contracts';
import { jsonb, kyselyOn, preparedStatement, sql, type Kysely, type Queryable } from '@svc/storage';
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
  await kyselyOn<DB>(tx)
    .insertInto('outbox')
    .values(
      envelopes.map((envelope) => ({
        eventId: envelope.id,
        type: envelope.type,
        payload: jsonb(envelope),
        occurredAt: envelope.occurredAt,
        traceContext: trace === null ? null : jsonb(trace),
      })),
    )
    .execute();
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
