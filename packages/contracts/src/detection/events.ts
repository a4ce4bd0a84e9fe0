import { z } from 'zod';
import { defineEvent } from '../common/envelope';
import { enforcementLevel, instant, policy } from '../common/event-values';
import { faceStatusSchema } from '../common/identity';

/** The entity each event versions (ADR 0010). */
const byBox = { entity: 'boxId' };

// Detection's facts. The envelope's platformId is the platform that owns the box.

/**
 * A box is matchable: detection has indexed its names (and the reference images it could
 * fingerprint). Enforcement starts a new box's initial scan of every platform's avatars on the
 * first one (`firstIndexed`), so the scan never runs before detection can match the box.
 */
export const boxIndexed = defineEvent(
  'detection.box.indexed',
  1,
  z.object({
    boxId: z.string(),
    claimId: z.string(),
    ownerPlatformId: z.string(),
    identityName: z.string(),
    policy,
    enforcement: enforcementLevel,
    firstIndexed: z.boolean(),
    referenceImagesIndexed: z.number().int().min(0),
    indexedAt: instant,
  }),
  byBox,
);

/**
 * A claim's reference image was enrolled (docs/spec/contracts.md §15): its fingerprint taken and its
 * face examined, or given up. The registry shows `faceStatus` on the claim's `referenceImages[].face`.
 * Never carries a descriptor: only the status. The envelope's platformId is the claim's owner.
 */
export const referenceImageEnrolled = defineEvent(
  'detection.reference_image.enrolled',
  1,
  z.object({
    claimId: z.string(),
    imageId: z.string(),
    url: z.string(),
    faceStatus: faceStatusSchema,
    /** False when the picture could not be fetched or read at all. */
    fingerprinted: z.boolean(),
    enrolledAt: instant,
  }),
);

export const detectionEvents = [boxIndexed, referenceImageEnrolled] as const;
