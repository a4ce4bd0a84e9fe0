import { sql } from 'kysely';
import { kyselyOn, type Queryable } from '@svc/storage';
import type { Environment } from '../domain/api-key';
import type { ApiKeyRecord, ApiKeyStore, NewApiKey } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** A key as the admin API shows it: never its hash. */
function keys(q: Queryable) {
  return db(q)
    .selectFrom('apiKeys')
    .select([
      'id',
      'platformId',
      'name',
      'last4',
      'lastUsedAt',
      'scope',
      'environment',
      'budgetId',
      'createdAt',
      'expiresAt',
      'revokedAt',
      'replacedBy',
    ]);
}

/** API keys (hashes only) in the gateway's database. */
export class ApiKeyRepository implements ApiKeyStore {
  async insert(tx: Queryable, key: NewApiKey): Promise<void> {
    await db(tx)
      .insertInto('apiKeys')
      .values({
        id: key.id,
        platformId: key.platformId,
        name: key.name,
        last4: key.last4,
        scope: key.scope,
        environment: key.environment,
        keyHash: key.keyHash,
        budgetId: key.budgetId,
        createdAt: key.createdAt,
      })
      .execute();
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<ApiKeyRecord | null> {
    const row = await keys(q)
      .where('id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row ?? null;
  }

  async listForPlatform(q: Queryable, platformId: string): Promise<ApiKeyRecord[]> {
    return keys(q)
      .where('platformId', '=', platformId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async markRotated(tx: Queryable, id: string, expiresAt: Date, successorId: string): Promise<void> {
    await db(tx)
      .updateTable('apiKeys')
      .set({ expiresAt, replacedBy: successorId })
      .where('id', '=', id)
      .execute();
  }

  async markRevoked(tx: Queryable, id: string, at: Date, successorId: string | null): Promise<void> {
    await db(tx)
      .updateTable('apiKeys')
      .set((eb) => ({ revokedAt: at, replacedBy: eb.fn.coalesce('replacedBy', eb.val(successorId)) }))
      .where('id', '=', id)
      .execute();
  }

  async lockIssuing(tx: Queryable, platformId: string): Promise<void> {
    // A transaction-scoped advisory lock per platform: released at commit or rollback.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`gateway.api-keys:${platformId}`}, 0))`.execute(
      db(tx),
    );
  }

  async countActive(q: Queryable, platformId: string, environment: Environment, now: Date): Promise<number> {
    const row = await db(q)
      .selectFrom('apiKeys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('platformId', '=', platformId)
      .where('environment', '=', environment)
      .where('revokedAt', 'is', null)
      .where('replacedBy', 'is', null)
      .where((eb) => eb.or([eb('expiresAt', 'is', null), eb('expiresAt', '>', now)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
