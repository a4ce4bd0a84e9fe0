-- Sign-in security (#30, docs/spec/contracts.md §17): a second factor (TOTP, RFC 6238) and its
-- one-time recovery codes, known devices (OWASP "device cookies": the owner's browser is not
-- throttled with an attacker's guesses), and the fingerprint of the operator token an operator
-- session was started with (a new ADMIN_TOKEN ends the sessions of the old one).

-- Base32 TOTP secrets. A secret is needed in clear to check a code: read access to this table
-- is a second-factor bypass, like the operator's ADMIN_TOTP_SECRET in the environment.
ALTER TABLE accounts
  -- The confirmed secret: a code is then required at every sign-in.
  ADD COLUMN totp_secret text,
  -- Shown once at enrolment, confirmed by a first code (then moved to totp_secret).
  ADD COLUMN totp_pending_secret text,
  -- The last time step a code was accepted for: a code is accepted once.
  ADD COLUMN totp_last_step bigint;

-- SHA-256 of each recovery code (10 random base62 characters each; shown once at enrolment).
CREATE TABLE recovery_codes (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (account_id, code_hash)
);

-- A browser the account signed in from (cookie svc_device, SHA-256 here).
CREATE TABLE known_devices (
  token_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL
);
CREATE INDEX known_devices_account_idx ON known_devices (account_id);

-- HMAC-SHA-256 of the ADMIN_TOKEN an operator session was signed in with; null for other accounts.
ALTER TABLE sessions ADD COLUMN admin_token_fingerprint text;
