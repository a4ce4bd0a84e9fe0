import { kyselyOn, preparedStatement, sql, type Kysely, type Queryable } from '@svc/storage';
import type { BudgetGrant, BudgetRequest, KeyBudgetStore, KnownKey } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// A key by its hash, with its platform: read when a replica does not know the key (or may know it
// stale); built and compiled once, then run with each request's values.
const findKey = preparedStatement('gateway_find_key', (db: Kysely<DB>, input: { keyHash: string }) =>
  db
    .selectFrom('apiKeys as k')
    .innerJoin('platforms as p', 'p.id', 'k.platformId')
    .select([
      'k.id',
      'k.keyHash',
      'k.platformId',
      'k.environment',
      'k.budgetId',
      'k.expiresAt',
      'k.revokedAt',
      'k.scope',
      'p.plan',
      'p.name as platformName',
      'p.domain',
      'p.perMinute',
      'p.perDay',
    ])
    .where('k.keyHash', '=', input.keyHash),
);

// A lease of budget (ADR 0025): for each bucket, hand out min(want, limit - count) units in one
// atomic upsert, so concurrent replicas never hand out more than the limit between them. The
// conflict branch reads the proposed row's count (min(want, limit), the same grant when the
// window is fresh) and max_count (the limit); every SET expression sees the row before the update.
const acquireBudget = preparedStatement(
  'gateway_acquire_budget',
  (
    db: Kysely<DB>,
    input: { buckets: string[]; windowStarts: string[]; wants: number[]; limits: number[] },
  ) => {
    const requested = sql<{ bucket: string; windowStart: Date; want: number; lim: number }>`unnest(
      ${input.buckets}::text[], ${input.windowStarts}::timestamptz[], ${input.wants}::int[], ${input.limits}::int[])`;
    const grant = sql<number>`LEAST(excluded.count, GREATEST(0, excluded.max_count - rate_limit_counters.count))`;
    return db
      .insertInto('rateLimitCounters')
      .columns(['bucket', 'windowStart', 'count', 'maxCount', 'lastGrant'])
      .expression((eb) =>
        eb
          .selectFrom(requested.as<'r'>(sql`r (bucket, window_start, want, lim)`))
          .select([
            'r.bucket',
            'r.windowStart',
            sql<number>`LEAST(r.want, r.lim)`.as('count'),
            'r.lim',
            sql<number>`LEAST(r.want, r.lim)`.as('lastGrant'),
          ]),
      )
      .onConflict((conflict) =>
        conflict.columns(['bucket', 'windowStart']).doUpdateSet({
          count: sql<number>`rate_limit_counters.count + ${grant}`,
          maxCount: sql<number>`excluded.max_count`,
          lastGrant: grant,
        }),
      )
      .returning(['bucket', 'count', 'lastGrant']);
  },
);

// Unspent units back to their buckets (never below zero).
const returnBudget = preparedStatement(
  'gateway_return_budget',
  (db: Kysely<DB>, input: { buckets: string[]; windowStarts: string[]; units: number[] }) =>
    db
      .updateTable('rateLimitCounters')
      .from(
        sql<{ bucket: string; windowStart: Date; units: number }>`unnest(
          ${input.buckets}::text[], ${input.windowStarts}::timestamptz[], ${input.units}::int[])`.as<'r'>(
          sql`r (bucket, window_start, units)`,
        ),
      )
      .set({ count: sql<number>`GREATEST(0, rate_limit_counters.count - r.units)` })
      .whereRef('rateLimitCounters.bucket', '=', 'r.bucket')
      .whereRef('rateLimitCounters.windowStart', '=', 'r.windowStart'),
);

/** The edge's shared state: keys by hash, and leases of rate-limit budget. */
export class KeyAuthenticationRepository implements KeyBudgetStore {
  async findKey(q: Queryable, keyHash: string): Promise<KnownKey | null> {
    const { rows } = await findKey(q, { keyHash });
    const row = rows[0];
    if (row === undefined) return null;
    return {
      keyId: row.id,
      keyHash: row.keyHash,
      platformId: row.platformId,
      environment: row.environment,
      budgetId: row.budgetId,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
      scope: row.scope,
      plan: row.plan,
      domain: row.domain,
      platformName: row.platformName,
      storedLimits:
        row.perMinute === null || row.perDay === null
          ? null
          : { perMinute: row.perMinute, perDay: row.perDay },
    };
  }

  async acquireBudget(q: Queryable, requests: BudgetRequest[]): Promise<BudgetGrant[]> {
    if (requests.length === 0) return [];
    const { rows } = await acquireBudget(q, {
      buckets: requests.map((each) => each.bucket),
      windowStarts: requests.map((each) => each.windowStart.toISOString()),
      wants: requests.map((each) => each.want),
      limits: requests.map((each) => each.limit),
    });
    return rows.map((row) => ({ bucket: row.bucket, granted: row.lastGrant ?? 0, count: row.count }));
  }

  async returnBudget(
    q: Queryable,
    units: { bucket: string; windowStart: Date; units: number }[],
  ): Promise<void> {
    if (units.length === 0) return;
    await returnBudget(q, {
      buckets: units.map((each) => each.bucket),
      windowStarts: units.map((each) => each.windowStart.toISOString()),
      units: units.map((each) => each.units),
    });
  }

  async recordKeyUses(q: Queryable, uses: { keyId: string; at: Date }[]): Promise<void> {
    if (uses.length === 0) return;
    await db(q)
      .updateTable('apiKeys')
      .from(
        sql<{ id: string; at: Date }>`unnest(${uses.map((use) => use.keyId)}::text[], ${uses.map((use) =>
          use.at.toISOString(),
        )}::timestamptz[])`.as<'u'>(sql`u (id, at)`),
      )
      .set({ lastUsedAt: sql<Date>`GREATEST(api_keys.last_used_at, u.at)` })
      .whereRef('apiKeys.id', '=', 'u.id')
      .execute();
  }

  async purgeCounters(q: Queryable, before: Date): Promise<number> {
    const { numDeletedRows } = await db(q)
      .deleteFrom('rateLimitCounters')
      .where('windowStart', '<', before)
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }
}
