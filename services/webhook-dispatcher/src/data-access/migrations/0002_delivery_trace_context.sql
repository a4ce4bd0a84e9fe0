-- The W3C trace context (traceparent, tracestate) of the event a delivery was made from, when
-- tracing is on: the worker's POST to the endpoint joins that trace, however much later it runs.
ALTER TABLE webhook_deliveries ADD COLUMN trace_context jsonb NULL;
