import type { Queryable } from '@svc/storage';

export interface DueReferenceImage {
  imageId: string;
  claimId: string;
  url: string;
  attempts: number;
}

/** Reference images waiting for their fingerprint (the reference-image job's queue). */
export class ReferenceImageRepository {
  /** Takes up to `limit` due images and holds them for `leaseMs` (several replicas share the work). */
  async lease(
    db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
    now: Date,
    limit: number,
    leaseMs: number,
  ): Promise<DueReferenceImage[]> {
    return db.transaction(async (tx) => {
      const due = await tx.query<{ image_id: string; claim_id: string; url: string; attempts: number }>(
        `SELECT image_id, claim_id, url, attempts FROM reference_images
         WHERE state = 'pending' AND next_attempt_at <= $1
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now.toISOString(), limit],
      );
      if (due.rows.length === 0) return [];
      await tx.query(`UPDATE reference_images SET next_attempt_at = $2 WHERE image_id = ANY($1::text[])`, [
        due.rows.map((row) => row.image_id),
        new Date(now.getTime() + leaseMs).toISOString(),
      ]);
      return due.rows.map((row) => ({
        imageId: row.image_id,
        claimId: row.claim_id,
        url: row.url,
        attempts: Number(row.attempts),
      }));
    });
  }

  /**
   * Sends indexed images whose fingerprint is of an older format back to be fingerprinted again
   * (a replica still on the old version may write one during a rolling upgrade; migration 0015
   * requeued the rest). Cheap: the partial index of migration 0015 holds only such rows, and its
   * predicate is repeated here word for word so that PostgreSQL uses it. Returns how many.
   */
  async requeueOutdated(db: Queryable, now: Date): Promise<number> {
    const result = await db.query(
      `UPDATE reference_images
          SET state = 'pending', fingerprint = NULL, attempts = 0, last_error = NULL, next_attempt_at = $1
        WHERE state = 'indexed' AND fingerprint NOT LIKE 'v2:%'
        RETURNING image_id`,
      [now.toISOString()],
    );
    return result.rows.length;
  }

  /** Stores the fingerprint unless the image changed meanwhile; true when stored. */
  async markIndexed(tx: Queryable, image: DueReferenceImage, fingerprintHex: string): Promise<boolean> {
    const result = await tx.query(
      `UPDATE reference_images SET state = 'indexed', fingerprint = $3, attempts = attempts + 1, last_error = NULL
       WHERE image_id = $1 AND url = $2 AND state = 'pending' RETURNING image_id`,
      [image.imageId, image.url, fingerprintHex],
    );
    return result.rows.length > 0;
  }

  /** Another attempt at `retryAt`, or failed for good when `retryAt` is null. */
  async markAttemptFailed(
    tx: Queryable,
    image: DueReferenceImage,
    error: string,
    retryAt: Date | null,
  ): Promise<void> {
    await tx.query(
      `UPDATE reference_images SET attempts = attempts + 1, last_error = $3,
         state = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
         next_attempt_at = COALESCE($4::timestamptz, next_attempt_at)
       WHERE image_id = $1 AND url = $2 AND state = 'pending'`,
      [image.imageId, image.url, error, retryAt === null ? null : retryAt.toISOString()],
    );
  }

  /** The identity changed (a new fingerprint): replicas read it again. */
  async touchIdentity(tx: Queryable, claimId: string): Promise<void> {
    await tx.query(
      `UPDATE identities SET change_seq = nextval('identity_change_seq') WHERE claim_id = $1 AND NOT removed`,
      [claimId],
    );
  }
}
