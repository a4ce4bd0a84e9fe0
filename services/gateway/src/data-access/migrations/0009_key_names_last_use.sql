-- Named keys (#32): a name the platform chose, the last four characters of the secret (shown so a
-- developer can tell which key a config holds; the secret itself is never kept), and when the key
-- last authenticated a request (written by each replica every few seconds, never per request).
ALTER TABLE api_keys ADD COLUMN name text;
ALTER TABLE api_keys ADD COLUMN last4 text;
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
