import { sql } from 'kysely';
import { kyselyOn, type Queryable } from '@svc/storage';
import type { Upload, UploadStore } from '../domain/account-ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Pictures uploaded from the dashboard, bytes and all, in the gateway's database. */
export class UploadRepository implements UploadStore {
  async insert(q: Queryable, upload: Upload): Promise<void> {
    await db(q).insertInto('dashboardUploads').values(upload).execute();
  }

  async find(q: Queryable, id: string): Promise<Pick<Upload, 'contentType' | 'bytes'> | null> {
    const row = await db(q)
      .selectFrom('dashboardUploads')
      .select(['contentType', 'bytes'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ?? null;
  }

  async lockAccount(tx: Queryable, accountId: string): Promise<void> {
    // A transaction-scoped advisory lock per account: released at commit or rollback.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`gateway.uploads:${accountId}`}, 0))`.execute(
      db(tx),
    );
  }

  async usage(q: Queryable, accountId: string): Promise<{ count: number; bytes: number }> {
    const row = await db(q)
      .selectFrom('dashboardUploads')
      .select((eb) => [
        eb.fn.countAll<string>().as('count'),
        eb.fn.sum<string | null>('sizeBytes').as('bytes'),
      ])
      .where('accountId', '=', accountId)
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), bytes: Number(row.bytes ?? 0) };
  }

  async createdBefore(
    q: Queryable,
    cutoff: Date,
    limit: number,
  ): Promise<{ id: string; platformId: string; inFiles: boolean }[]> {
    const rows = await db(q)
      .selectFrom('dashboardUploads')
      .select(['id', 'platformId', sql<boolean>`bytes IS NULL`.as('inFiles')])
      .where('createdAt', '<', cutoff)
      .orderBy(sql`purge_checked_at ASC NULLS FIRST`)
      .orderBy('createdAt', 'asc')
      .limit(limit)
      .execute();
    return rows;
  }

  async markInUse(q: Queryable, ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await db(q).updateTable('dashboardUploads').set({ purgeCheckedAt: at }).where('id', 'in', ids).execute();
  }

  async delete(q: Queryable, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await db(q).deleteFrom('dashboardUploads').where('id', 'in', ids).execute();
  }
}
