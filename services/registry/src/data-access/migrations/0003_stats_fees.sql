-- Issue #15: a box's revenue includes its licenses' fees (billing.payment.due, kind fee).
-- Money in integer cents. One row per license and period: the notice with the highest version
-- is the period's current fee (a correction after an early end replaces it, 0 included).
CREATE TABLE stats_fees (
  license_id text NOT NULL,
  period text NOT NULL,
  version integer NOT NULL,
  box_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  amount_cents bigint NOT NULL,
  PRIMARY KEY (license_id, period)
);
CREATE INDEX stats_fees_box_idx ON stats_fees (box_id, period);
