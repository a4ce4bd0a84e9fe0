import { entityIdOf, type EventEnvelope } from '@svc/contracts';
import type { Queryable } from '@svc/storage';
import { traceContextToStore } from './trace-context';

/**
 * Stamps an event with the next version of the entity it is about (ADR 0010). The counter row is
 * locked until the caller's transaction commits, so versions of one entity follow commit order.
 */
async function withEntityVersion(tx: Queryable, envelope: EventEnvelope): Promise<EventEnvelope> {
  const entityId = entityIdOf(envelope);
  if (entityId === null || envelope.entity !== undefined) return envelope;
  const { rows } = await tx.query<{ version: string | number }>(
    `INSERT INTO entity_versions (entity_id, version) VALUES ($1, 1)
     ON CONFLICT (entity_id) DO UPDATE SET version = entity_versions.version + 1
     RETURNING version`,
    [entityId],
  );
  return { ...envelope, entity: { id: entityId, version: Number(rows[0]?.version ?? 1) } };
}

/**
 * Records events in the outbox inside the caller's transaction, so the state change and its
 * events commit (or roll back) together; the `OutboxRelay` publishes them afterwards. Each event
 * about an entity gets that entity's next version here (ADR 0010).
 */
export async function appendToOutbox(tx: Queryable, ...received: EventEnvelope[]): Promise<void> {
  if (received.length === 0) return;
  const values: string[] = [];
  const params: unknown[] = [];
  const envelopes: EventEnvelope[] = [];
  for (const envelope of received) envelopes.push(await withEntityVersion(tx, envelope));
  const trace = traceContextToStore();
  const traceJson = trace === null ? null : JSON.stringify(trace);
  for (const envelope of envelopes) {
    const n = params.length;
    values.push(`($${n + 1}, $${n + 2}, $${n + 3}::jsonb, $${n + 4}::timestamptz, $${n + 5}::jsonb)`);
    params.push(envelope.id, envelope.type, JSON.stringify(envelope), envelope.occurredAt, traceJson);
  }
  await tx.query(
    `INSERT INTO outbox (event_id, type, payload, occurred_at, trace_context) VALUES ${values.join(', ')}`,
    params,
  );
}

/**
 * The version of the latest event written about an entity (0 when none was): what an owner sends
 * with a read-through answer (ADR 0010). Read it before the entity's state, so the state is at
 * least as new as the version.
 */
export async function currentEntityVersion(q: Queryable, entityId: string): Promise<number> {
  const { rows } = await q.query<{ version: string | number }>(
    'SELECT version FROM entity_versions WHERE entity_id = $1',
    [entityId],
  );
  return rows[0] === undefined ? 0 : Number(rows[0].version);
}
