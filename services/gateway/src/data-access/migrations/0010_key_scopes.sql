-- Restricted keys (#32): what a key may call. Keys issued before scopes reach everything, as before.
ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'full'
  CHECK (scope IN ('full', 'read_only', 'check_only'));
