import { kyselyOn, preparedStatement, sql, type Kysely, type Queryable } from '@svc/storage';
import type { Environment } from '../domain/api-key';
import type { AuthenticatedKey, CountWindows, KeyAuthenticationStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// One round trip per request: find the key and, when it may be used, count the request in the
// minute, day and (optional) extra buckets of its budget. Counting in the database is what lets
// several gateway replicas enforce one budget.
// Built and compiled once (a few hundred µs per request otherwise), then run with each request's values.
const authenticateAndCount = preparedStatement(
  'gateway_authenticate_and_count',
  (
    db: Kysely<DB>,
    input: {
      keyHash: string;
      now: Date;
      environment: Environment;
      minuteStart: Date;
      dayStart: Date;
      extraBucket: string | null;
      extraWindowStart: Date | null;
    },
  ) => {
    const { keyHash, now, environment, extraBucket } = input;
    const budget = sql.ref('k.budgetId');
    // A bucket per window; the extra one is null (so not counted) when the route has none.
    const buckets = sql<{ bucket: string | null; windowStart: Date }>`(VALUES
    ('m:' || ${budget}, ${input.minuteStart}::timestamptz),
    ('d:' || ${budget}, ${input.dayStart}::timestamptz),
    (CASE WHEN ${extraBucket}::text IS NULL THEN NULL ELSE ${extraBucket}::text || ':' || ${budget} END,
      ${input.extraWindowStart}::timestamptz)
  )`;
    return db
      .with('k', (qb) =>
        qb
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
            'p.plan',
            'p.name',
            'p.domain',
            'p.perMinute',
            'p.perDay',
          ])
          .where('k.keyHash', '=', keyHash),
      )
      .with('counted', (qb) =>
        qb
          .insertInto('rateLimitCounters')
          .columns(['bucket', 'windowStart', 'count'])
          .expression((eb) =>
            eb
              .selectFrom('k')
              .crossJoinLateral(buckets.as<'b'>(sql`b (bucket, window_start)`))
              .select(['b.bucket', 'b.windowStart', sql<number>`1`.as('count')])
              .where('b.bucket', 'is not', null)
              .where('k.revokedAt', 'is', null)
              .where((w) =>
                w.or([w('k.expiresAt', 'is', null), w('k.expiresAt', '>', sql<Date>`${now}::timestamptz`)]),
              )
              .where('k.environment', '=', environment),
          )
          .onConflict((conflict) =>
            conflict
              .columns(['bucket', 'windowStart'])
              .doUpdateSet((eb) => ({ count: eb(eb.ref('rateLimitCounters.count'), '+', 1) })),
          )
          .returning(['bucket', 'count']),
      )
      .selectFrom('k')
      .selectAll('k')
      .select((eb) => {
        const countOf = (bucket: ReturnType<typeof sql<string>>) =>
          eb.selectFrom('counted').select('counted.count').where('counted.bucket', '=', bucket);
        return [
          countOf(sql<string>`'m:' || ${budget}`).as('minuteCount'),
          countOf(sql<string>`'d:' || ${budget}`).as('dayCount'),
          countOf(sql<string>`${extraBucket}::text || ':' || ${budget}`).as('extraCount'),
        ];
      });
  },
);

/** The hot-path query of the edge: key lookup plus rate counting. */
export class KeyAuthenticationRepository implements KeyAuthenticationStore {
  async authenticateAndCount(
    q: Queryable,
    keyHash: string,
    now: Date,
    environment: Environment,
    windows: CountWindows,
  ): Promise<AuthenticatedKey | null> {
    const { rows } = await authenticateAndCount(q, {
      keyHash,
      now,
      environment,
      minuteStart: windows.minuteStart,
      dayStart: windows.dayStart,
      extraBucket: windows.extra?.bucket ?? null,
      extraWindowStart: windows.extra?.windowStart ?? null,
    });
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
      plan: row.plan,
      domain: row.domain,
      platformName: row.name,
      storedLimits:
        row.perMinute === null || row.perDay === null
          ? null
          : { perMinute: row.perMinute, perDay: row.perDay },
      minuteCount: row.minuteCount,
      dayCount: row.dayCount,
      extraCount: row.extraCount,
    };
  }

  async purgeCounters(q: Queryable, before: Date): Promise<number> {
    const { numDeletedRows } = await db(q)
      .deleteFrom('rateLimitCounters')
      .where('windowStart', '<', before)
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }
}
