import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Written out, not parameters: the partial indexes (due: state = 'pending'; outdated: state =
// 'indexed' AND fingerprint NOT LIKE 'v2:%') serve a query only when its condition says so itself.
const PENDING = sql.lit('pending');
const INDEXED = sql.lit('indexed');
const CURRENT_FORMAT = sql.lit('v2:%');

/** What enrolment found in a reference image (docs/spec/contracts.md §15). */
export type FaceEnrolment =
  | { status: 'enrolled'; descriptor: Float32Array; model: string }
  | { status: 'no_face' | 'several_faces' | 'failed' };

/** A stored descriptor as bytes (little-endian float32) and back. */
export function descriptorToBytes(descriptor: Float32Array): Buffer {
  const bytes = Buffer.alloc(descriptor.length * 4);
  for (let i = 0; i < descriptor.length; i += 1) bytes.writeFloatLE(descriptor[i] ?? 0, i * 4);
  return bytes;
}

export function descriptorFromBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const descriptor = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < descriptor.length; i += 1) descriptor[i] = view.getFloat32(i * 4, true);
  return descriptor;
}

/** A reference image as the index reads it: its fingerprint and, when enrolled, its face. */
export interface StoredReference {
  imageId: string;
  /** null: not fingerprinted (yet, or of an older format). */
  hex: string | null;
  face: Float32Array | null;
}

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

  /**
   * Stores the fingerprint and the face unless the image changed meanwhile (or another replica
   * enrolled it first: the row is no longer pending); true when stored. So an image is enrolled
   * once however often a lease ran out under a stalled or killed replica.
   */
  async markIndexed(
    tx: Queryable,
    image: DueReferenceImage,
    fingerprintHex: string,
    face: FaceEnrolment,
  ): Promise<boolean> {
    const stored = await db(tx)
      .updateTable('referenceImages')
      .set((eb) => ({
        state: INDEXED,
        fingerprint: fingerprintHex,
        faceStatus: face.status,
        faceDescriptor: face.status === 'enrolled' ? descriptorToBytes(face.descriptor) : null,
        faceModel: face.status === 'enrolled' ? face.model : null,
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

  /** Another attempt at `retryAt`, or failed for good when `retryAt` is null; false when the row moved on. */
  async markAttemptFailed(
    tx: Queryable,
    image: DueReferenceImage,
    error: string,
    retryAt: Date | null,
  ): Promise<boolean> {
    const updated = await db(tx)
      .updateTable('referenceImages')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        lastError: error,
        ...(retryAt === null
          ? { state: 'failed', faceStatus: 'failed', faceDescriptor: null, faceModel: null }
          : { state: PENDING, nextAttemptAt: retryAt }),
      }))
      .where('imageId', '=', image.imageId)
      .where('url', '=', image.url)
      .where('state', '=', PENDING)
      .returning('imageId')
      .executeTakeFirst();
    return updated !== undefined;
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
              faceStatus: 'pending',
              faceDescriptor: null,
              faceModel: null,
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

  /**
   * The claims' reference images as the index reads them: fingerprints of the current format (an
   * older one waits to be recomputed: ADR 0015) and enrolled faces of `faceModel`. A picture being
   * enrolled again keeps matching by its fingerprint meanwhile.
   */
  async referencesOf(
    q: Queryable,
    claimIds: string[],
    faceModel: string,
  ): Promise<Map<string, StoredReference[]>> {
    const out = new Map<string, StoredReference[]>();
    if (claimIds.length === 0) return out;
    const rows = await db(q)
      .selectFrom('referenceImages')
      .select(['claimId', 'imageId', 'fingerprint', 'faceDescriptor', 'faceModel'])
      .where((eb) => eb('claimId', '=', eb.fn.any(sql<string[]>`${claimIds}::text[]`)))
      .where((eb) =>
        eb.or([eb('fingerprint', 'like', CURRENT_FORMAT), eb('faceStatus', '=', sql.lit('enrolled'))]),
      )
      .orderBy('claimId')
      .orderBy('imageId')
      .execute();
    for (const row of rows) {
      const list = out.get(row.claimId) ?? [];
      list.push({
        imageId: row.imageId,
        hex: row.fingerprint !== null && row.fingerprint.startsWith('v2:') ? row.fingerprint : null,
        face:
          row.faceDescriptor !== null && row.faceModel === faceModel
            ? descriptorFromBytes(row.faceDescriptor)
            : null,
      });
      out.set(row.claimId, list);
    }
    return out;
  }

  /**
   * Which of these images still have an enrolled face: a replica confirms a face match here before
   * it answers, so a face deleted a moment ago (its claim deleted or rejected, the image removed)
   * never matches, whatever the replica's index still holds (docs/spec/contracts.md §15).
   */
  async enrolledFaces(q: Queryable, imageIds: readonly string[]): Promise<Set<string>> {
    if (imageIds.length === 0) return new Set();
    const rows = await db(q)
      .selectFrom('referenceImages')
      .select('imageId')
      .where((eb) => eb('imageId', '=', eb.fn.any(sql<string[]>`${[...imageIds]}::text[]`)))
      .where('faceStatus', '=', sql.lit('enrolled'))
      .execute();
    return new Set(rows.map((row) => row.imageId));
  }

  /** Forgets the faces of these images, or of the whole claim, now (the registry asks before it answers). */
  async forgetFaces(tx: Queryable, claimId: string, imageIds?: readonly string[]): Promise<number> {
    const forgotten = await db(tx)
      .deleteFrom('referenceImages')
      .where('claimId', '=', claimId)
      .$if(imageIds !== undefined, (query) =>
        query.where((eb) => eb('imageId', '=', eb.fn.any(sql<string[]>`${[...(imageIds ?? [])]}::text[]`))),
      )
      .returning('imageId')
      .execute();
    return forgotten.length;
  }
}
