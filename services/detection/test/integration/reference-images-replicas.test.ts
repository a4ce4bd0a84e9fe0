import { ManualClock } from '@svc/clock';
import { FINGERPRINT_WORDS } from '@svc/image-fingerprint';
import { appendToOutbox } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase, waitFor } from '@svc/test-kit';
import { detectionMigrations } from '../../src';
import { IdentityRepository } from '../../src/data-access/identity.repository';
import { ReferenceImageRepository } from '../../src/data-access/reference-image.repository';
import {
  fingerprintDueReferenceImages,
  type ReferenceImageDeps,
} from '../../src/domain/fingerprint-reference-images.use-case';
import type { EnrolledPicture, ImageSource } from '../../src/domain/ports';

// The reference-image job on two detection replicas (issue #34, "Singletons that are not"). Due
// images are leased in their rows (FOR UPDATE SKIP LOCKED, then next_attempt_at pushed a minute
// ahead) and fetched outside any transaction: a replica that dies leaves its leases to run out,
// and one that stalls past them (paused, or cut off and back) comes back after the other replica
// enrolled the images: an image is stored and announced only while its row is still pending, so
// its late result is refused. The replicas here are two contexts of the job, each with its own
// pool and its own picture fetcher, on one database.

let database: { url: string; drop(): Promise<void> };
let setup: Database;
const pools: Database[] = [];
const clock = new ManualClock('2026-12-01T09:00:00.000Z');
const referenceImages = new ReferenceImageRepository();
const LEASE_MS = 60_000;

beforeAll(async () => {
  database = await freshPostgresDatabase('reference_images_replicas');
  setup = await createDatabase({ url: database.url });
  await runMigrations(setup, detectionMigrations());
});
afterAll(async () => {
  for (const pool of pools) await pool.close();
  await setup.close();
  await database.drop();
});

/** A picture fetcher whose fingerprints are all `mark` (whose they are shows in what is stored), counting fetches. */
function fetcher(mark: number, before?: () => Promise<void>) {
  const fetched: string[] = [];
  const images: ImageSource = {
    fingerprintOf: () => Promise.reject(new Error('not used by the job')),
    analyse: () => Promise.reject(new Error('not used by the job')),
    enrol: async (url: string): Promise<EnrolledPicture> => {
      fetched.push(url);
      await before?.();
      return { fingerprint: { words: new Uint32Array(FINGERPRINT_WORDS).fill(mark) }, faces: [] };
    },
  };
  return { images, fetched };
}

async function replica(images: ImageSource): Promise<ReferenceImageDeps> {
  const db = await createDatabase({ url: database.url, maxConnections: 2 });
  pools.push(db);
  return {
    db,
    images,
    identities: new IdentityRepository(),
    referenceImages,
    clock,
    outbox: appendToOutbox,
  };
}

let claims = 0;
/** `count` reference images of a new claim, waiting for their first fetch; their urls. */
async function newImages(count: number): Promise<string[]> {
  claims += 1;
  const claimId = `claim_refs${claims}`;
  const images = Array.from({ length: count }, (_, i) => ({
    id: `img_${claims}_${i}`,
    url: `https://pictures.example/${claims}/${i}.png`,
  }));
  await setup.transaction((tx) => referenceImages.replace(tx, claimId, images, clock.now()));
  return images.map((image) => image.url);
}

/** Per url: its state, who fingerprinted it (the fetcher's mark) and how often it was announced. */
async function enrolled(urls: string[]) {
  const { rows } = await setup.query<{ url: string; state: string; fingerprint: string | null; n: number }>(
    `SELECT r.url, r.state, r.fingerprint,
            (SELECT count(*)::int FROM outbox o WHERE o.type = 'detection.reference_image.enrolled'
                AND o.payload->'data'->>'imageId' = r.image_id) AS n
       FROM reference_images r WHERE r.url = ANY($1::text[]) ORDER BY r.url`,
    [urls],
  );
  return rows.map((row) => ({
    url: row.url,
    state: row.state,
    by: row.fingerprint === null ? null : Number.parseInt(row.fingerprint.slice(-8), 16),
    announced: row.n,
  }));
}

describe('the reference-image job on two replicas', () => {
  it('when both replicas run passes at once until nothing is due, then each image is fetched once, stored and announced once', async () => {
    const urls = await newImages(24);
    const a = fetcher(1);
    const b = fetcher(2);
    const ctxA = await replica(a.images);
    const ctxB = await replica(b.images);
    for (let round = 0; round < 6; round += 1) {
      const passes = await Promise.all(
        [ctxA, ctxB, ctxA, ctxB].map((ctx) => fingerprintDueReferenceImages(ctx)),
      );
      if (passes.every((pass) => pass.handled === 0)) break;
    }
    const fetched = [...a.fetched, ...b.fetched];
    expect(urls.map((url) => fetched.filter((f) => f === url).length)).toEqual(urls.map(() => 1));
    const stored = await enrolled(urls);
    expect(stored.map((s) => [s.state, s.announced])).toEqual(urls.map(() => ['indexed', 1]));
    expect(a.fetched.length).toBeGreaterThan(0);
    expect(b.fetched.length).toBeGreaterThan(0);
  });

  it('when the replica fetching images stalls past its lease and then resumes, then the other fetches them only once the lease ran out, and the stalled one stores and announces nothing', async () => {
    const urls = await newImages(4);
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const a = fetcher(1, () => resumed);
    const b = fetcher(2);
    const stalled = fingerprintDueReferenceImages(await replica(a.images));
    const ctxB = await replica(b.images);
    await waitFor(() => a.fetched.length === 4, { what: 'the first replica fetching its leased images' });
    // Within its lease the other replica leaves them alone.
    clock.advance(LEASE_MS - 1000);
    expect(await fingerprintDueReferenceImages(ctxB)).toEqual({ handled: 0, changed: false });
    // Once it ran out, the other replica enrols them.
    clock.advance(2000);
    expect((await fingerprintDueReferenceImages(ctxB)).handled).toBe(4);
    const done = await enrolled(urls);
    expect(done.map((s) => [s.state, s.by, s.announced])).toEqual(urls.map(() => ['indexed', 2, 1]));
    // The stalled replica resumes with its pictures: none of it is stored or announced.
    resume();
    expect(await stalled).toEqual({ handled: 4, changed: false });
    expect(await enrolled(urls)).toEqual(done);
  });
});
