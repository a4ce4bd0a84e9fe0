-- The projection of registry boxes (registry.box.* events): pricing for resolution options and
-- the box's removal. A deleted box keeps its row (deleted_at set) so a late event never revives it.
CREATE TABLE boxes (
  box_id text PRIMARY KEY,
  claim_id text NOT NULL,
  owner_platform_id text NOT NULL,
  identity_name text NOT NULL,
  policy text NOT NULL,
  enforcement text NOT NULL,
  policy_config jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz NULL
);

-- The projection of licenses (licensing.license.* events): which platform holds an active license on which box.
CREATE TABLE licenses (
  license_id text PRIMARY KEY,
  box_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  status text NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX licenses_holder_idx ON licenses (licensee_platform_id, box_id) WHERE status = 'active';

-- A platform's sandbox clock runs ahead of real time by offset_ms (test helper advance-time).
CREATE TABLE sandbox_clocks (
  platform_id text PRIMARY KEY,
  offset_ms bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL
);

-- Avatars reported by platforms. `ref` (av_...) is ours; `avatar_id` is the platform's own id.
-- A deleted avatar keeps its row (deleted_at) so that its violations can still show it.
CREATE TABLE avatars (
  ref text PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  platform_id text NOT NULL,
  avatar_id text NOT NULL,
  name text NOT NULL,
  description text NULL,
  image_url text NULL,
  creator_id text NOT NULL,
  creator_name text NULL,
  creator_email text NULL,
  user_count integer NOT NULL,
  commercial boolean NOT NULL,
  platform_domain text NULL,
  revision integer NOT NULL,
  evaluation text NOT NULL,
  evaluation_attempts integer NOT NULL DEFAULT 0,
  next_evaluation_at timestamptz NULL,
  evaluation_lease_until timestamptz NULL,
  last_evaluation_error text NULL,
  match jsonb NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz NULL,
  UNIQUE (platform_id, avatar_id)
);
CREATE INDEX avatars_platform_idx ON avatars (platform_id, created_at DESC, seq DESC);
CREATE INDEX avatars_pending_idx ON avatars (next_evaluation_at) WHERE evaluation = 'pending' AND deleted_at IS NULL;

CREATE TABLE violations (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  platform_id text NOT NULL,
  avatar_ref text NOT NULL REFERENCES avatars (ref),
  box_id text NOT NULL,
  claim_id text NOT NULL,
  identity_name text NOT NULL,
  box_owner_platform_id text NOT NULL,
  policy text NOT NULL,
  enforcement text NOT NULL,
  policy_config jsonb NOT NULL,
  status text NOT NULL,
  severity text NOT NULL,
  confidence double precision NOT NULL,
  layer integer NOT NULL,
  classification text NOT NULL,
  matched_variations jsonb NOT NULL,
  image_match_score double precision NULL,
  parody_likelihood double precision NOT NULL,
  detected_at timestamptz NOT NULL,
  grace_period_id text NOT NULL,
  resolution text NULL,
  resolution_notes text NULL,
  license_id text NULL,
  resolved_at timestamptz NULL,
  enforced_at timestamptz NULL
);
CREATE INDEX violations_platform_idx ON violations (platform_id, detected_at DESC, seq DESC);
CREATE INDEX violations_box_idx ON violations (box_id) WHERE status IN ('pending', 'appealed');
-- At most one open violation per avatar and box.
CREATE UNIQUE INDEX violations_open_idx ON violations (avatar_ref, box_id) WHERE status IN ('pending', 'appealed');

CREATE TABLE grace_periods (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  platform_id text NOT NULL,
  violation_id text NOT NULL UNIQUE,
  box_id text NOT NULL,
  claim_id text NOT NULL,
  identity_name text NOT NULL,
  box_owner_platform_id text NOT NULL,
  policy text NOT NULL,
  environment text NOT NULL,
  enforcement text NOT NULL,
  status text NOT NULL,
  started_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  paused_at timestamptz NULL,
  paused_ms bigint NOT NULL DEFAULT 0,
  resolution text NULL,
  resolved_at timestamptz NULL,
  ended_at timestamptz NULL,
  day0_recipients jsonb NOT NULL
);
CREATE INDEX grace_periods_platform_idx ON grace_periods (platform_id, started_at DESC, seq DESC);
CREATE INDEX grace_periods_box_idx ON grace_periods (box_id) WHERE status IN ('active', 'paused');

-- The durable timeline: one row per timed step of a grace period, in the hosting platform's time.
-- scheduled: waiting for due_at; held: its grace period is paused; fired; cancelled.
CREATE TABLE timeline_steps (
  id bigserial PRIMARY KEY,
  grace_period_id text NOT NULL REFERENCES grace_periods (id),
  platform_id text NOT NULL,
  kind text NOT NULL,
  position integer NOT NULL,
  due_at timestamptz NOT NULL,
  status text NOT NULL,
  fired_at timestamptz NULL,
  recipients jsonb NULL,
  UNIQUE (grace_period_id, kind)
);
CREATE INDEX timeline_due_idx ON timeline_steps (due_at, position, id) WHERE status = 'scheduled';
CREATE INDEX timeline_platform_due_idx ON timeline_steps (platform_id, due_at, position, id) WHERE status = 'scheduled';

CREATE TABLE appeals (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  violation_id text NOT NULL REFERENCES violations (id),
  grace_period_id text NOT NULL,
  reason text NOT NULL,
  explanation text NOT NULL,
  evidence jsonb NOT NULL,
  status text NOT NULL,
  submitted_at timestamptz NOT NULL,
  decided_at timestamptz NULL,
  decided_by text NULL,
  notes text NULL
);
CREATE INDEX appeals_violation_idx ON appeals (violation_id, submitted_at DESC);

-- A new box's initial scan of every platform's avatars, page by page (cursor = the last avatar seq).
CREATE TABLE box_scans (
  box_id text PRIMARY KEY,
  status text NOT NULL,
  cursor_seq bigint NOT NULL DEFAULT 0,
  avatars_scanned integer NOT NULL DEFAULT 0,
  violations_created integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until timestamptz NULL,
  last_error text NULL,
  started_at timestamptz NOT NULL,
  completed_at timestamptz NULL
);
CREATE INDEX box_scans_due_idx ON box_scans (next_attempt_at) WHERE status = 'in_progress';
