-- Request logs (#32): each key's recent requests, for the platform's developers to find one by its
-- request id. Written by each replica in batches (never a write per request); kept 3 days.
CREATE TABLE request_log (
  id bigserial PRIMARY KEY,
  platform_id text NOT NULL,
  key_id text NOT NULL,
  at timestamptz NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  operation text,
  status integer NOT NULL,
  latency_ms integer NOT NULL,
  request_id text NOT NULL
);
CREATE INDEX request_log_platform_at ON request_log (platform_id, at DESC, id DESC);
CREATE INDEX request_log_platform_request ON request_log (platform_id, request_id);
CREATE INDEX request_log_at ON request_log (at);
