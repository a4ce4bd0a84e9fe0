-- Pictures a dashboard account uploads as a claim's reference images (ADR 0024). The public API
-- takes reference images by URL only, so the dashboard stores the picture here and hands out
-- GET /dashboard/uploads/<id>, which the claim then names like any other URL. The id is 144
-- random bits: knowing the URL is what reading the picture takes, as with any URL given to the API.
CREATE TABLE dashboard_uploads (
  id text PRIMARY KEY,
  platform_id text NOT NULL REFERENCES platforms (id),
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- Sniffed from the bytes: image/png, image/jpeg or image/webp.
  content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  size_bytes integer NOT NULL CHECK (size_bytes > 0),
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX dashboard_uploads_platform_idx ON dashboard_uploads (platform_id);
