-- Billing owns usage (docs/adr/0016): a license's detail reads the period's figures from billing,
-- so licensing's copy of billing.usage.reported and its consumer's inbox rows go.
DROP TABLE license_usage;
DELETE FROM processed_messages WHERE consumer = 'licensing.usage';
