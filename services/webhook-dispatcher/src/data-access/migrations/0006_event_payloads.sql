-- Each public event's payload stored once (issue #33, ADR 0036): an event fanned out to n endpoints
-- wrote its body n times, and the worker read it back with every batch. The deliveries keep their
-- event id; the bytes that are signed and sent live here, once, for every delivery of the event
-- (the same public event id always has the same body: public-events.ts derives both from the
-- internal event).
CREATE TABLE webhook_event_payloads (
  event_id text PRIMARY KEY,
  payload text NOT NULL
);
INSERT INTO webhook_event_payloads (event_id, payload)
  SELECT DISTINCT ON (event_id) event_id, payload FROM webhook_deliveries ORDER BY event_id, seq;
ALTER TABLE webhook_deliveries DROP COLUMN payload;
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_event_payload_fk
  FOREIGN KEY (event_id) REFERENCES webhook_event_payloads (event_id);
