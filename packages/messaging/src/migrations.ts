import type { MigrationSource } from '@svc/storage';

/**
 * The tables of the transactional outbox and of the processed-message (inbox) store. Each
 * service runs them in its own database next to its own migrations:
 * `runMigrations(db, [messagingMigrations, serviceMigrations])`.
 */
export const messagingMigrations: MigrationSource = {
  namespace: 'messaging',
  migrations: [
    {
      version: 1,
      name: 'outbox_and_processed_messages',
      sql: `
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL UNIQUE,
  type text NOT NULL,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_error text NULL
);
-- The relay only ever reads unsent rows, in id order: keep that index as small as the backlog.
CREATE INDEX outbox_unpublished_idx ON outbox (id) WHERE published_at IS NULL;

CREATE TABLE processed_messages (
  consumer text NOT NULL,
  event_id text NOT NULL,
  processed_at timestamptz NOT NULL,
  PRIMARY KEY (consumer, event_id)
);
`,
    },
    {
      // Numbered 10 (not 2) so it never collides with other additions to this namespace.
      version: 10,
      name: 'entity_versions',
      sql: `
-- The last version given to each entity's events (ADR 0010): bumped in the transaction that
-- changes the entity and writes its outbox row, so consumers can order the entity's events.
CREATE TABLE entity_versions (
  entity_id text PRIMARY KEY,
  version bigint NOT NULL
);
`,
    },
    {
      version: 11,
      name: 'outbox_trace_context',
      sql: `
-- The W3C trace context (traceparent, tracestate) of the transaction that wrote the event, when
-- tracing is on: the relay publishes the event inside that trace (ADR on observability).
ALTER TABLE outbox ADD COLUMN trace_context jsonb NULL;
`,
    },
    {
      version: 12,
      name: 'outbox_without_event_id_index',
      sql: `
-- ADR 0037: every row gets one more index entry for each index it has, at the append and again
-- when the relay marks it sent (a new row version, the partial index's predicate changed). Event
-- ids are drawn at random (newId), nothing looks a row up by its event id, and consumers dedupe by
-- it in their own inbox: the unique index cost a third of the relay's buffer pages for nothing.
ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_event_id_key;
`,
    },
  ],
};
