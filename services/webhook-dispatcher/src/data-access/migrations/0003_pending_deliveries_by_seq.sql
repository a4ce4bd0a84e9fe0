-- The worker reads an endpoint's pending deliveries oldest first (ORDER BY seq LIMIT n). Without
-- this index the planner walked webhook_deliveries_list_idx from the endpoint's oldest delivery
-- and filtered out every delivered one before the first pending one: a cost that grew with the
-- endpoint's history (ADR 0022, EXPLAIN ANALYZE there). Partial: it holds the pending rows only.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';
