import type { Clock } from '@svc/clock';
import { isAppError } from '@svc/errors';
import { fingerprintToHex } from '@svc/image-fingerprint';
import type { Database } from '@svc/ports';
import type { DueReferenceImage, ReferenceImageRepository } from '../data-access/reference-image.repository';
import { boxIndexedEvent, type ProjectionDeps } from './project-registry-event.use-case';
import type { ImageSource } from './ports';

/** Waits after a failed attempt (then the image is given up: `failed`, last_error kept). */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000];
/** How long a leased image is held by the replica fetching it. */
const LEASE_MS = 60_000;
const BATCH = 8;

export interface ReferenceImageDeps extends ProjectionDeps {
  db: Database;
  images: ImageSource;
  referenceImages: ReferenceImageRepository;
  clock: Clock;
}

async function settle(
  deps: ReferenceImageDeps,
  image: DueReferenceImage,
  outcome: { hex: string } | { error: string },
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    await deps.identities.lockForChange(tx);
    let changed = false;
    if ('hex' in outcome) {
      changed = await deps.referenceImages.markIndexed(tx, image, outcome.hex);
      if (changed) await deps.identities.touch(tx, image.claimId);
    } else {
      const delay = RETRY_DELAYS_MS[image.attempts];
      const retryAt = delay === undefined ? null : new Date(deps.clock.now().getTime() + delay);
      await deps.referenceImages.markAttemptFailed(tx, image, outcome.error, retryAt);
    }
    const announcement = await deps.identities.takeBoxAnnouncement(tx, image.claimId);
    if (announcement) await deps.outbox(tx, boxIndexedEvent(announcement, deps.clock.now()));
    return changed || announcement !== null;
  });
}

/**
 * Fingerprints the reference images that are due (new ones, failed ones after their delay, and
 * ones stored in an older fingerprint format), through the same guarded, cached fetch as the
 * identity check. Returns how many were handled.
 */
export async function fingerprintDueReferenceImages(
  deps: ReferenceImageDeps,
): Promise<{ handled: number; changed: boolean }> {
  // Fingerprints of an older format (written by a replica not yet upgraded) are done again.
  await deps.referenceImages.requeueOutdated(deps.db, deps.clock.now());
  const due = await deps.referenceImages.lease(deps.db, deps.clock.now(), BATCH, LEASE_MS);
  const settled = await Promise.all(
    due.map(async (image) => {
      try {
        const fingerprint = await deps.images.fingerprintOf(image.url);
        return settle(deps, image, { hex: fingerprintToHex(fingerprint) });
      } catch (err) {
        if (!isAppError(err)) throw err;
        return settle(deps, image, { error: `${err.code}: ${err.message}` });
      }
    }),
  );
  return { handled: due.length, changed: settled.some(Boolean) };
}
