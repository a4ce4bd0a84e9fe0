-- The projection of licensing's licenses (fed by licensing.license.* events; billing never asks licensing).
CREATE TABLE licenses (
  id text PRIMARY KEY,
  box_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  licensee_platform_name text NOT NULL,
  box_owner_platform_id text NOT NULL,
  -- The rate exactly as licensing sent it (a JSON number's decimal form), e.g. '0.125'.
  royalty_rate text NOT NULL,
  currency text NOT NULL,
  status text NOT NULL,
  valid_from timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz NULL,
  -- occurredAt of the last event applied: an older event arriving late changes nothing.
  last_event_at timestamptz NOT NULL
);

-- Every version of every report is kept; the highest version of a license and period is current.
CREATE TABLE usage_reports (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  license_id text NOT NULL REFERENCES licenses (id),
  period text NOT NULL,
  version integer NOT NULL,
  licensee_platform_id text NOT NULL,
  metrics jsonb NOT NULL,
  -- Cents by reported revenue type, as strings (exact).
  revenue_cents jsonb NOT NULL,
  total_revenue_cents bigint NOT NULL,
  royalty_rate text NOT NULL,
  royalty_due_cents bigint NOT NULL,
  currency text NOT NULL,
  due_date timestamptz NOT NULL,
  reported_at timestamptz NOT NULL,
  superseded_at timestamptz NULL,
  UNIQUE (license_id, period, version)
);

-- The royalty ledger: append-only. A report's accrual is +royalty; a correction adds the
-- difference as an adjustment (possibly negative). The payer owes, the recipient is owed.
CREATE TABLE ledger_entries (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  kind text NOT NULL CHECK (kind IN ('accrual', 'adjustment')),
  report_id text NOT NULL REFERENCES usage_reports (id),
  license_id text NOT NULL,
  period text NOT NULL,
  payer_platform_id text NOT NULL,
  recipient_platform_id text NOT NULL,
  amount_cents bigint NOT NULL,
  currency text NOT NULL,
  due_date timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX ledger_payer_idx ON ledger_entries (payer_platform_id, license_id, period);
CREATE INDEX ledger_recipient_idx ON ledger_entries (recipient_platform_id);
