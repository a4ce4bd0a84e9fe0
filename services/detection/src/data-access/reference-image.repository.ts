import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Written out, not parameters: the partial indexes (due: state = 'pending'; outdated: state =
// 'indexed' AND fingerprint NOT LIKE 'v2:%') serve a query only when its condition says so itself.
const PENDING = sql.lit('pending');
const INDEXED = sql.lit('indexed');
const CURRENT_FORMAT = sql.lit('v2:%');

export interface DueReferenceImage {
  imageId: string;
  claimId: string;
  url: string;
  attempts: number;
}

/** Reference images of verified claims and their fingerprints (the reference-image job's queue). */
export class ReferenceImageRepository {
  /** Takes up to `limit` due images and holds them for `leaseMs` (several replicas share the work). */
  async lease(
    database: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
    now: Date,
    limit: number,
    leaseMs: number,
  ): Promise<DueReferenceImage[]> {
    return database.transaction(async (tx) => {
      const due = await db(tx)
        .selectFrom('referenceImages')
        .select(['imageId', 'claimId', 'url', 'attempts'])
        .where('state', '=', PENDING)
        .where('nextAttemptAt', '<=', now)
        .orderBy('nextAttemptAt')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (due.length === 0) return [];
      const ids = due.map((row) => row.imageId);
      await db(tx)
        .updateTable('referenceImages')
        .set({ nextAttemptAt: new Date(now.getTime() + leaseMs) })
        .where((eb) => eb('imageId', '=', eb.fn.any(sql<string[]>`${ids}::text[]`)))
        .execute();
      return due;
    });
  }

  /**
   * Sends indexed images whose fingerprint is of an older format back to be fingerprinted again
   * (a replica still on the old version may write one during a rolling upgrade; migration 0015
   * requeued the rest). Cheap: the partial index of migration 0015 holds only such rows, and its
   * predicate is repeated here so that PostgreSQL uses it. Returns how many.
   */
  async requeueOutdated(q: Queryable, now: Date): Promise<number> {
    const requeued = await db(q)
      .updateTable('referenceImages')
      .set({ state: PENDING, fingerprint: null, attempts: 0, lastError: null, nextAttemptAt: now })
      .where('state', '=', INDEXED)
      .where('fingerprint', 'not like', CURRENT_FORMAT)
      .returning('imageId')
      .execute();
    return requeued.length;
  }

  /** Stores the fingerprint unless the image changed meanwhile; true when stored. */
  async markIndexed(tx: Queryable, image: DueReferenceImage, fingerprintHex: string): Promise<boolean> {
    const stored = await db(tx)
      .updateTable('referenceImages')
      .set((eb) => ({
        state: INDEXED,
        fingerprint: fingerprintHex,
        attempts: eb('attempts', '+', 1),
        lastError: null,
      }))
      .where('imageId', '=', image.imageId)
      .where('url', '=', image.url)
      .where('state', '=', PENDING)
      .returning('imageId')
      .executeTakeFirst();
    return stored !== undefined;
  }

  /** Another attempt at `retryAt`, or failed for good when `retryAt` is null. */
  async markAttemptFailed(
    tx: Queryable,
    image: DueReferenceImage,
    error: string,
    retryAt: Date | null,
  ): Promise<void> {
    await db(tx)
      .updateTable('referenceImages')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        lastError: error,
        ...(retryAt === null ? { state: 'failed' } : { state: PENDING, nextAttemptAt: retryAt }),
      }))
      .where('imageId', '=', image.imageId)
      .where('url', '=', image.url)
      .where('state', '=', PENDING)
      .execute();
  }

  /** Replaces the claim's images: new URLs wait for a fingerprint, gone ones go. */
  async replace(tx: Queryable, claimId: string, images: { id: string; url: string }[], now: Date) {
    const ids = images.map((image) => image.id);
    await db(tx)
      .deleteFrom('referenceImages')
      .where('claimId', '=', claimId)
      .where((eb) => eb.not(eb('imageId', '=', eb.fn.any(sql<string[]>`${ids}::text[]`))))
      .execute();
    for (const image of images) {
      // The same id with another URL is another picture: fingerprint it again.
      await db(tx)
        .insertInto('referenceImages')
        .values({ imageId: image.id, claimId, url: image.url, state: PENDING, nextAttemptAt: now })
        .onConflict((conflict) =>
          conflict
            .column('imageId')
            .doUpdateSet((eb) => ({
              url: eb.ref('excluded.url'),
              claimId: eb.ref('excluded.claimId'),
              state: PENDING,
              fingerprint: null,
              attempts: 0,
              nextAttemptAt: eb.ref('excluded.nextAttemptAt'),
              lastError: null,
            }))
            .where((eb) =>
              eb.or([
                eb('referenceImages.url', '<>', eb.ref('excluded.url')),
                eb('referenceImages.claimId', '<>', eb.ref('excluded.claimId')),
              ]),
            ),
        )
        .execute();
    }
  }

  async deleteOfClaim(tx: Queryable, claimId: string): Promise<void> {
    await db(tx).deleteFrom('referenceImages').where('claimId', '=', claimId).execute();
  }

  /** How many of the claim's images still wait for their first attempt, and how many are indexed. */
  async countsOf(tx: Queryable, claimId: string): Promise<{ firstAttemptDue: number; indexed: number }> {
    const counts = await db(tx)
      .selectFrom('referenceImages')
      .select((eb) => [
        eb.fn
          .countAll<number>()
          .filterWhere((f) => f.and([f('state', '=', PENDING), f('attempts', '=', sql.lit(0))]))
          .as('firstAttemptDue'),
        eb.fn.countAll<number>().filterWhere('state', '=', INDEXED).as('indexed'),
      ])
      .where('claimId', '=', claimId)
      .executeTakeFirst();
    return { firstAttemptDue: Number(counts?.firstAttemptDue ?? 0), indexed: Number(counts?.indexed ?? 0) };
  }

  /** Indexed fingerprints of the current format (an older one waits to be recomputed: ADR 0015). */
  async fingerprintsOf(
    q: Queryable,
    claimIds: string[],
  ): Promise<Map<string, { imageId: string; hex: string }[]>> {
    const out = new Map<string, { imageId: string; hex: string }[]>();
    if (claimIds.length === 0) return out;
    const rows = await db(q)
      .selectFrom('referenceImages')
      .select(['claimId', 'imageId', 'fingerprint'])
      .where((eb) => eb('claimId', '=', eb.fn.any(sql<string[]>`${claimIds}::text[]`)))
      .where('state', '=', INDEXED)
      .where('fingerprint', 'like', CURRENT_FORMAT)
      .orderBy('claimId')
      .orderBy('imageId')
      .execute();
    for (const row of rows) {
      const list = out.get(row.claimId) ?? [];
      // Not null: an indexed image has its fingerprint (LIKE holds only for a value).
      list.push({ imageId: row.imageId, hex: row.fingerprint ?? '' });
      out.set(row.claimId, list);
    }
    return out;
  }
}
