-- Budget leases (ADR 0025): a replica takes a slice of a bucket's budget in one statement and
-- spends it in memory. `count` is then what was handed out (never more than `max_count`, the
-- bucket's limit when it was last leased from); `last_grant` is what the last lease got, read back
-- by the statement that took it. Counters of sessions and sign-ins leave both null.
ALTER TABLE rate_limit_counters ADD COLUMN max_count integer;
ALTER TABLE rate_limit_counters ADD COLUMN last_grant integer;

-- Every replica caches keys with their platforms; a change to either is announced to all of them
-- once it commits (LISTEN gateway_key_changes), so a revoked key is refused everywhere at once.
CREATE FUNCTION gateway_announce_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_key_changes', TG_TABLE_NAME || ':' || COALESCE(NEW.id, OLD.id));
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_announce_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_key_change();
CREATE TRIGGER platforms_announce_change AFTER UPDATE OR DELETE ON platforms
  FOR EACH ROW EXECUTE FUNCTION gateway_announce_key_change();
