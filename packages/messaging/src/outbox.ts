import type { EventEnvelope } from '@svc/contracts';
import type { Queryable } from '@svc/storage';

/**
 * Records events in the outbox inside the caller's transaction, so the state change and its
 * events commit (or roll back) together; the `OutboxRelay` publishes them afterwards.
 */
export async function appendToOutbox(tx: Queryable, ...envelopes: EventEnvelope[]): Promise<void> {
  if (envelopes.length === 0) return;
  const values: string[] = [];
  const params: unknown[] = [];
  for (const envelope of envelopes) {
    const n = params.length;
    values.push(`($${n + 1}, $${n + 2}, $${n + 3}::jsonb, $${n + 4}::timestamptz)`);
    params.push(envelope.id, envelope.type, JSON.stringify(envelope), envelope.occurredAt);
  }
  await tx.query(
    `INSERT INTO outbox (event_id, type, payload, occurred_at) VALUES ${values.join(', ')}`,
    params,
  );
}
