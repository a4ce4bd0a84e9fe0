-- License credentials (contracts §16, docs/adr/0029): the signed credentials issued at each
-- activation, renewal and upgrade (the newest is served), each license's place in a status list,
-- and the signing key generated when none is configured (sandbox only: replicas and restarts share it).
CREATE TABLE license_credentials (
  id bigserial PRIMARY KEY,
  license_id text NOT NULL REFERENCES licenses (id),
  kid text NOT NULL,
  credential text NOT NULL,
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX license_credentials_license_idx ON license_credentials (license_id, id DESC);

-- Indexes of status list 1 (2^20 entries): 0 .. 1048575. When it runs out, activation fails
-- loudly until list 2 is added (docs/adr/0029, When a list fills).
CREATE SEQUENCE status_list_1_idx_seq AS integer MINVALUE 0 MAXVALUE 1048575 START WITH 0 NO CYCLE;

CREATE TABLE license_status_entries (
  license_id text PRIMARY KEY REFERENCES licenses (id),
  list_id integer NOT NULL,
  idx integer NOT NULL,
  UNIQUE (list_id, idx)
);

-- At most one row: the generated signing key (a private JWK) of a deployment without a configured one.
CREATE TABLE generated_signing_keys (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  kid text NOT NULL,
  private_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
