-- Account mail (#30): sign-ups waiting for their address to be verified, password-reset links, and
-- the mail outbox that commits with them and a relay sends with retries.

-- A sign-up becomes an account (and its tenant) only when the link mailed to the address is
-- followed: until then sign-in knows no such account, and the address is not taken.
CREATE TABLE pending_sign_ups (
  -- Lower-cased; signing up again replaces the pending sign-up (new password, new link).
  email text PRIMARY KEY,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('creator', 'platform')),
  -- argon2id, PHC string format.
  password_hash text NOT NULL,
  -- SHA-256 of the link's token: a database read does not verify addresses.
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX pending_sign_ups_expires_idx ON pending_sign_ups (expires_at);

CREATE TABLE password_resets (
  -- SHA-256 of the link's token.
  token_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Single use: set when the link resets the password (or another link of the account did).
  used_at timestamptz
);
CREATE INDEX password_resets_account_idx ON password_resets (account_id);
CREATE INDEX password_resets_expires_idx ON password_resets (expires_at);

CREATE TABLE mail_outbox (
  id text PRIMARY KEY,
  recipient text NOT NULL,
  subject text NOT NULL,
  -- Emptied once sent: a link's token is not kept in the database longer than it must.
  body text NOT NULL,
  created_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  sent_at timestamptz,
  last_error text
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
