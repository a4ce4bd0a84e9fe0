import type { Queryable } from '@svc/storage';
import type { Environment } from '../domain/api-key';
import type { AuthenticatedKey, CountWindows, KeyAuthenticationStore } from '../domain/ports';
import type { Plan } from '../domain/plans';

interface Row {
  id: string;
  key_hash: string;
  platform_id: string;
  environment: Environment;
  budget_id: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  plan: Plan;
  name: string;
  domain: string | null;
  per_minute: number | null;
  per_day: number | null;
  minute_count: number | null;
  day_count: number | null;
  extra_count: number | null;
}

// One round trip per request: find the key and, when it may be used, count the request in the
// minute, day and (optional) extra buckets of its budget. Counting in the database is what lets
// several gateway replicas enforce one budget.
const AUTHENTICATE_AND_COUNT = `
WITH k AS (
  SELECT k.id, k.key_hash, k.platform_id, k.environment, k.budget_id, k.expires_at, k.revoked_at,
         p.plan, p.name, p.domain, p.per_minute, p.per_day
  FROM api_keys k JOIN platforms p ON p.id = k.platform_id
  WHERE k.key_hash = $1
),
counted AS (
  INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
  SELECT b.bucket, b.window_start, 1
  FROM k CROSS JOIN LATERAL (VALUES
    ('m:' || k.budget_id, $3::timestamptz),
    ('d:' || k.budget_id, $4::timestamptz),
    (CASE WHEN $5::text IS NULL THEN NULL ELSE $5::text || ':' || k.budget_id END, $6::timestamptz)
  ) AS b (bucket, window_start)
  WHERE b.bucket IS NOT NULL
    AND k.revoked_at IS NULL
    AND (k.expires_at IS NULL OR k.expires_at > $2::timestamptz)
    AND k.environment = $7
  ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + 1
  RETURNING c.bucket, c.count
)
SELECT k.*,
  (SELECT count FROM counted WHERE bucket = 'm:' || k.budget_id) AS minute_count,
  (SELECT count FROM counted WHERE bucket = 'd:' || k.budget_id) AS day_count,
  (SELECT count FROM counted WHERE bucket = $5::text || ':' || k.budget_id) AS extra_count
FROM k`;

/** The hot-path query of the edge: key lookup plus rate counting. */
export class KeyAuthenticationRepository implements KeyAuthenticationStore {
  constructor(private readonly db: Queryable) {}

  async authenticateAndCount(
    keyHash: string,
    now: Date,
    environment: Environment,
    windows: CountWindows,
  ): Promise<AuthenticatedKey | null> {
    const { rows } = await this.db.query<Row>(
      AUTHENTICATE_AND_COUNT,
      [
        keyHash,
        now,
        windows.minuteStart,
        windows.dayStart,
        windows.extra?.bucket ?? null,
        windows.extra?.windowStart ?? null,
        environment,
      ],
      { name: 'gateway_authenticate_and_count' },
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      keyId: row.id,
      keyHash: row.key_hash,
      platformId: row.platform_id,
      environment: row.environment,
      budgetId: row.budget_id,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
      revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
      plan: row.plan,
      domain: row.domain,
      platformName: row.name,
      storedLimits:
        row.per_minute === null || row.per_day === null
          ? null
          : { perMinute: row.per_minute, perDay: row.per_day },
      minuteCount: row.minute_count,
      dayCount: row.day_count,
      extraCount: row.extra_count,
    };
  }

  async purgeCounters(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM rate_limit_counters WHERE window_start < $1', [
      before,
    ]);
    return rowCount;
  }
}
