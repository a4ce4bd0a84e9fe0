-- Each platform's sandbox clock offset (enforcement.clock.advanced, applied once per event through
-- the inbox): a licence's times are its licensee's clock, real time plus this offset.
CREATE TABLE sandbox_clocks (
  platform_id text PRIMARY KEY,
  offset_ms bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
