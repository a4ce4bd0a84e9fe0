-- The fencing token of an endpoint's lease (issue #34): taking the lease counts it up, so a worker
-- that stalled past its lease (lease_until passed, another replica took the endpoint) no longer
-- matches. Before each POST the worker checks that it still holds the lease it took (owner and
-- token) and that it has not expired; recording a batch and releasing or renewing a lease take
-- effect only where owner and token still match.
ALTER TABLE webhook_endpoints ADD COLUMN lease_token bigint NOT NULL DEFAULT 0;
