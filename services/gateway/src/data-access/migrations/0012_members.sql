-- Members of a tenant (issue #32, docs/adr/0034): each account has a role among its tenant's
-- people, enforced by the gateway on every call its sessions make; owners invite others by a
-- link mailed to their address. Accounts that existed before are their tenant's owners.
ALTER TABLE accounts ADD COLUMN member_role text NOT NULL DEFAULT 'owner'
  CHECK (member_role IN ('owner', 'developer', 'read_only'));

CREATE TABLE invitations (
  id text PRIMARY KEY,
  platform_id text NOT NULL REFERENCES platforms (id),
  -- Lower-cased, as accounts' addresses are.
  email text NOT NULL,
  member_role text NOT NULL CHECK (member_role IN ('owner', 'developer', 'read_only')),
  -- SHA-256 of the link's token: a database read does not let anyone join.
  token_hash text NOT NULL UNIQUE,
  invited_by text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz
);
-- One open invitation an address per tenant: inviting again withdraws the old one first.
CREATE UNIQUE INDEX invitations_open_idx ON invitations (platform_id, email)
  WHERE accepted_at IS NULL AND revoked_at IS NULL;
CREATE INDEX invitations_expires_idx ON invitations (expires_at);
