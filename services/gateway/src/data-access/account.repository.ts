import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { Account } from '../domain/account';
import type {
  AccountStore,
  ActiveSession,
  NewSession,
  RateCounterStore,
  SessionStore,
} from '../domain/account-ports';
import type { LimitsRule } from './platform.repository';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

function accounts(q: Queryable) {
  return db(q)
    .selectFrom('accounts')
    .select(['id', 'email', 'name', 'role', 'platformId', 'memberRole', 'createdAt']);
}

/** Dashboard accounts (argon2id hashes only) in the gateway's database. */
export class AccountRepository implements AccountStore {
  async insert(tx: Queryable, account: Account, passwordHash: string): Promise<boolean> {
    const inserted = await db(tx)
      .insertInto('accounts')
      .values({ ...account, passwordHash })
      .onConflict((conflict) => conflict.doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async findByEmail(q: Queryable, email: string): Promise<{ account: Account; passwordHash: string } | null> {
    const row = await db(q)
      .selectFrom('accounts')
      .select(['id', 'email', 'name', 'role', 'platformId', 'memberRole', 'createdAt', 'passwordHash'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (row === undefined) return null;
    const { passwordHash, ...account } = row;
    return { account, passwordHash };
  }

  async find(q: Queryable, id: string): Promise<Account | null> {
    return (await accounts(q).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async listByPlatform(q: Queryable, platformId: string): Promise<Account[]> {
    return accounts(q).where('platformId', '=', platformId).orderBy('createdAt').orderBy('id').execute();
  }
}

/** Sessions (token hashes only): one join finds the account and its tenant. */
export class SessionRepository implements SessionStore {
  constructor(private readonly limitsOf: LimitsRule) {}

  async insert(tx: Queryable, session: NewSession): Promise<void> {
    await db(tx).insertInto('sessions').values(session).execute();
  }

  async findActive(q: Queryable, tokenHash: string, now: Date): Promise<ActiveSession | null> {
    const row = await db(q)
      .selectFrom('sessions as s')
      .innerJoin('accounts as a', 'a.id', 's.accountId')
      .leftJoin('platforms as p', 'p.id', 'a.platformId')
      .select([
        's.id',
        's.csrfToken',
        's.expiresAt',
        's.adminTokenFingerprint',
        'a.id as accountId',
        'a.email',
        'a.name',
        'a.role',
        'a.platformId',
        'a.memberRole',
        'a.createdAt as accountCreatedAt',
        'p.name as platformName',
        'p.plan',
        'p.domain',
        'p.perMinute',
        'p.perDay',
        'p.createdAt as platformCreatedAt',
      ])
      .where('s.tokenHash', '=', tokenHash)
      .where('s.endedAt', 'is', null)
      .where('s.expiresAt', '>', now)
      .executeTakeFirst();
    if (row === undefined) return null;
    const account: Account = {
      id: row.accountId,
      email: row.email,
      name: row.name,
      role: row.role,
      platformId: row.platformId,
      memberRole: row.memberRole,
      createdAt: row.accountCreatedAt,
    };
    const platform =
      row.platformId === null ||
      row.plan === null ||
      row.platformName === null ||
      row.platformCreatedAt === null
        ? null
        : {
            id: row.platformId,
            name: row.platformName,
            plan: row.plan,
            domain: row.domain,
            limits: this.limitsOf(
              row.plan,
              row.perMinute === null || row.perDay === null
                ? null
                : { perMinute: row.perMinute, perDay: row.perDay },
            ),
            createdAt: row.platformCreatedAt,
          };
    return {
      id: row.id,
      csrfToken: row.csrfToken,
      expiresAt: row.expiresAt,
      account,
      platform,
      adminTokenFingerprint: row.adminTokenFingerprint,
    };
  }

  async end(q: Queryable, id: string, at: Date): Promise<void> {
    await db(q).updateTable('sessions').set({ endedAt: at }).where('id', '=', id).execute();
  }

  async endAllOf(q: Queryable, accountId: string, at: Date, exceptId?: string): Promise<number> {
    let update = db(q)
      .updateTable('sessions')
      .set({ endedAt: at })
      .where('accountId', '=', accountId)
      .where('endedAt', 'is', null)
      .where('expiresAt', '>', at);
    if (exceptId !== undefined) update = update.where('id', '!=', exceptId);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async purge(q: Queryable, before: Date): Promise<number> {
    const result = await db(q).deleteFrom('sessions').where('expiresAt', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Counters of the rate-limit table for sessions and sign-in attempts (keys count in one statement of their own). */
export class RateCounterRepository implements RateCounterStore {
  async increment(
    q: Queryable,
    buckets: { bucket: string; windowStart: Date }[],
  ): Promise<Map<string, number>> {
    const rows = await db(q)
      .insertInto('rateLimitCounters')
      .values(buckets.map((b) => ({ bucket: b.bucket, windowStart: b.windowStart, count: 1 })))
      .onConflict((conflict) =>
        conflict
          .columns(['bucket', 'windowStart'])
          .doUpdateSet({ count: sql<number>`rate_limit_counters.count + 1` }),
      )
      .returning(['bucket', 'count'])
      .execute();
    return new Map(rows.map((row) => [row.bucket, row.count]));
  }

  async giveBack(q: Queryable, buckets: { bucket: string; windowStart: Date }[]): Promise<void> {
    // One row per statement: a statement locking several counters in its own order could deadlock
    // with the parallel increments, which lock them in the buckets' order.
    for (const b of buckets) {
      await db(q)
        .updateTable('rateLimitCounters')
        .set({ count: sql<number>`greatest(count - 1, 0)` })
        .where('bucket', '=', b.bucket)
        .where('windowStart', '=', b.windowStart)
        .execute();
    }
  }

  async read(q: Queryable, bucket: string, windowStart: Date): Promise<number> {
    const row = await db(q)
      .selectFrom('rateLimitCounters')
      .select('count')
      .where('bucket', '=', bucket)
      .where('windowStart', '=', windowStart)
      .executeTakeFirst();
    return row?.count ?? 0;
  }
}
