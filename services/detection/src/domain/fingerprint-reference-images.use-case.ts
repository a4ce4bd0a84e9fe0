import type { Clock } from '@svc/clock';
import type { FaceStatus } from '@svc/contracts/common';
import { referenceImageEnrolled } from '@svc/contracts/detection';
import { isAppError } from '@svc/errors';
import { FACE_MODEL } from '@svc/face-engine';
import { fingerprintToHex } from '@svc/image-fingerprint';
import type { Database, Queryable } from '@svc/ports';
import type {
  DueReferenceImage,
  FaceEnrolment,
  ReferenceImageRepository,
} from '../data-access/reference-image.repository';
import { boxIndexedEvent, type ProjectionDeps } from './project-registry-event.use-case';
import type { EnrolledPicture, ImageSource } from './ports';

/** Waits after a failed attempt (then the image is given up: `failed`, last_error kept). */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000];
/** How long a leased image is held by the replica enrolling it (a killed replica's lease runs out). */
const LEASE_MS = 60_000;
const BATCH = 8;

export interface ReferenceImageDeps extends ProjectionDeps {
  db: Database;
  images: ImageSource;
  referenceImages: ReferenceImageRepository;
  clock: Clock;
}

/** Beside the widest face, another counts when the detector is this sure of it... */
const OTHER_FACE_MIN_SCORE = 0.5;
/** ...and it is at least this share of the widest face's width. */
const OTHER_FACE_MIN_SHARE = 1 / 3;

/**
 * A reference image's face: enrolled when the picture shows exactly one (docs/spec/contracts.md
 * §15). The widest face is the picture's; others the detector is unsure of, or that are small beside it (a patch on a
 * suit, a face on a poster behind), do not count: on the labelled set's portraits the detector
 * found such "faces" in 8 of them (ADR 0026).
 */
export function faceEnrolmentOf(faces: EnrolledPicture['faces']): FaceEnrolment {
  if (faces === null) return { status: 'failed' };
  const [main, ...rest] = [...faces].sort((a, b) => b.width - a.width || b.score - a.score);
  if (main === undefined) return { status: 'no_face' };
  const others = rest.filter(
    (face) => face.score >= OTHER_FACE_MIN_SCORE && face.width >= main.width * OTHER_FACE_MIN_SHARE,
  );
  if (others.length > 0) return { status: 'several_faces' };
  return { status: 'enrolled', descriptor: main.descriptor, model: FACE_MODEL };
}

async function announce(
  deps: ReferenceImageDeps,
  tx: Queryable,
  image: DueReferenceImage,
  faceStatus: FaceStatus,
  fingerprinted: boolean,
): Promise<void> {
  const identity = await deps.identities.ownerOf(tx, image.claimId);
  const now = deps.clock.now();
  await deps.outbox(
    tx,
    referenceImageEnrolled.create(
      {
        claimId: image.claimId,
        imageId: image.imageId,
        url: image.url,
        faceStatus,
        fingerprinted,
        enrolledAt: now.toISOString(),
      },
      { occurredAt: now, ...(identity === null ? {} : { platformId: identity }) },
    ),
  );
}

async function settle(
  deps: ReferenceImageDeps,
  image: DueReferenceImage,
  outcome: { hex: string; face: FaceEnrolment } | { error: string },
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    await deps.identities.lockForChange(tx);
    let changed = false;
    if ('hex' in outcome) {
      // Stored only while the row is still pending with this url: an image enrolled by another
      // replica (a lease that ran out under a stalled one) is not enrolled, nor announced, twice.
      changed = await deps.referenceImages.markIndexed(tx, image, outcome.hex, outcome.face);
      if (changed) {
        await deps.identities.touch(tx, image.claimId);
        await announce(deps, tx, image, outcome.face.status, true);
      }
    } else {
      const delay = RETRY_DELAYS_MS[image.attempts];
      const retryAt = delay === undefined ? null : new Date(deps.clock.now().getTime() + delay);
      const settledFailed = await deps.referenceImages.markAttemptFailed(tx, image, outcome.error, retryAt);
      if (settledFailed && retryAt === null) await announce(deps, tx, image, 'failed', false);
    }
    const announcement = await deps.identities.takeBoxAnnouncement(tx, image.claimId);
    if (announcement) await deps.outbox(tx, boxIndexedEvent(announcement, deps.clock.now()));
    return changed || announcement !== null;
  });
}

/**
 * Enrols the reference images that are due (new ones, failed ones after their delay, and ones
 * stored in an older format): each picture is fetched once, through the same guarded fetch as
 * the identity check, fingerprinted, and its faces examined in the worker threads. Durable and
 * resumable: the rows are the queue, leased for a minute; a replica killed mid-way leaves its
 * leases to run out and another takes them. Returns how many were handled.
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
        const picture = await deps.images.enrol(image.url);
        return settle(deps, image, {
          hex: fingerprintToHex(picture.fingerprint),
          face: faceEnrolmentOf(picture.faces),
        });
      } catch (err) {
        if (!isAppError(err)) throw err;
        return settle(deps, image, { error: `${err.code}: ${err.message}` });
      }
    }),
  );
  return { handled: due.length, changed: settled.some(Boolean) };
}
