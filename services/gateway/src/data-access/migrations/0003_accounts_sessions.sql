-- Dashboard accounts and their sessions (ADR 0024). An account belongs to a tenant (a platform
-- record): a creator's sign-up makes its own; a session then acts as that tenant, like its key.
-- Operators have no tenant: their sessions reach only the operator API.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  -- Lower-cased at sign-up: one account per address whatever its case.
  email text NOT NULL UNIQUE,
  -- argon2id, PHC string format.
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('creator', 'platform', 'operator')),
  name text NOT NULL,
  platform_id text REFERENCES platforms (id),
  created_at timestamptz NOT NULL,
  CHECK ((role = 'operator') = (platform_id IS NULL))
);
CREATE INDEX accounts_platform_idx ON accounts (platform_id);

CREATE TABLE sessions (
  id text PRIMARY KEY,
  -- SHA-256 of the cookie's token: a database read does not hand out sessions.
  token_hash text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- The synchronizer token every state-changing call must echo in X-CSRF-Token.
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX sessions_account_idx ON sessions (account_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);
