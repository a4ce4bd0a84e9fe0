-- Detection's projection of the registry (verified claims and their boxes) and of licensing
-- (active licenses), from which every replica builds its in-memory index.
--
-- change_seq orders every change of an identity (names, box, fingerprints, removal). Writers
-- take one advisory lock per transaction before drawing from the sequence, so sequence order is
-- commit order and a replica reading "changes after N" never skips one.
CREATE SEQUENCE identity_change_seq;

CREATE TABLE identities (
  claim_id text PRIMARY KEY,
  owner_platform_id text NOT NULL,
  name text NOT NULL,
  variations jsonb NOT NULL DEFAULT '[]',
  entity_type text NOT NULL,
  verification_tier text NOT NULL,
  verified_at timestamptz NOT NULL,
  claim_updated_at timestamptz NOT NULL,
  -- A tombstone (claim deleted, rejected or suspended): replicas see removals as changes.
  removed boolean NOT NULL DEFAULT false,
  box_id text NULL,
  policy text NULL,
  enforcement text NULL,
  policy_config jsonb NULL,
  royalty_rate double precision NULL,
  boxed_at timestamptz NULL,
  box_updated_at timestamptz NULL,
  -- Box ids already announced with detection.box.indexed (firstIndexed only once per box).
  announced_box_ids jsonb NOT NULL DEFAULT '[]',
  -- The box waits for its reference images before detection.box.indexed is published.
  box_announcement_due boolean NOT NULL DEFAULT false,
  change_seq bigint NOT NULL
);
CREATE UNIQUE INDEX identities_box_idx ON identities (box_id) WHERE box_id IS NOT NULL;
CREATE INDEX identities_change_idx ON identities (change_seq);

-- Reference images of verified claims, fingerprinted by the reference-image job.
CREATE TABLE reference_images (
  image_id text PRIMARY KEY,
  claim_id text NOT NULL,
  url text NOT NULL,
  fingerprint text NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'indexed', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text NULL
);
CREATE INDEX reference_images_claim_idx ON reference_images (claim_id);
CREATE INDEX reference_images_due_idx ON reference_images (next_attempt_at) WHERE state = 'pending';

-- Licenses by licensee and box (licensing.license.*): LICENSE boxes allow their licensees.
CREATE TABLE licenses (
  license_id text PRIMARY KEY,
  box_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  status text NOT NULL,
  expires_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX licenses_holder_idx ON licenses (licensee_platform_id, box_id);
