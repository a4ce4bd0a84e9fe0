-- The owner's price list is the only source of a price (issue #15): a tier the owner prices at
-- approval (enterprise, or a listed tier without a price) has no fee until the owner sets it.
ALTER TABLE license_requests ALTER COLUMN monthly_fee_cents DROP NOT NULL;
-- A renewal that upgrades to a tier needing the owner's review waits as a request on the license.
ALTER TABLE license_requests ADD COLUMN upgrade_of_license_id text NULL;
-- One active license per licensee, box and tier.
CREATE INDEX licenses_holding_idx ON licenses (licensee_platform_id, box_id, tier) WHERE status = 'active';
