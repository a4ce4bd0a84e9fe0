-- Issue #15: license fees in the same ledger as royalties, and one clock per platform.

-- The license's monthly fee (integer cents), as licensing's events last said.
ALTER TABLE licenses ADD COLUMN monthly_fee_cents bigint NOT NULL DEFAULT 0;

-- A ledger entry is a royalty (from a usage report) or a fee (from a license's billing period).
ALTER TABLE ledger_entries ALTER COLUMN report_id DROP NOT NULL;
ALTER TABLE ledger_entries ADD COLUMN charge text NOT NULL DEFAULT 'royalty' CHECK (charge IN ('royalty', 'fee'));

-- The current fee of each license and period (the ledger keeps every change as an adjustment).
CREATE TABLE fee_charges (
  license_id text NOT NULL REFERENCES licenses (id),
  period text NOT NULL,
  version integer NOT NULL,
  amount_cents bigint NOT NULL,
  -- The monthly fee the period was first billed at (a later price applies to later periods).
  monthly_fee_cents bigint NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (license_id, period)
);

-- Each platform's sandbox clock offset (enforcement.clock.advanced), applied once per event.
CREATE TABLE sandbox_clocks (
  platform_id text PRIMARY KEY,
  offset_ms bigint NOT NULL,
  updated_at timestamptz NOT NULL
);
