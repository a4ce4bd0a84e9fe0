import { z } from 'zod';
import { defineEvent } from '../common/envelope';
import { enforcementLevel, instant, policy } from '../common/event-values';

/** The entity each event versions (ADR 0010). */
const byBox = { entity: 'boxId' };
const byClaim = { entity: 'claimId' };

// Registry's facts. The envelope's platformId is the platform that owns the claim or box.
// Detection indexes verified claims and boxes from them; licensing and enforcement read the
// box's policy and configuration.

const entityType = z.enum(['INDIVIDUAL', 'ESTATE', 'CORPORATION', 'AGENCY']);
const claimStatus = z.enum(['pending', 'verified', 'rejected', 'suspended']);
const verificationTier = z.enum(['GOLD', 'SILVER', 'BRONZE']);

const claimData = z.object({
  claimId: z.string(),
  ownerPlatformId: z.string(),
  name: z.string(),
  variations: z.array(z.string()),
  entityType,
  status: claimStatus,
  verificationTier,
  referenceImages: z.array(z.object({ id: z.string(), url: z.string(), isPrimary: z.boolean() })),
  verifiedAt: instant.nullable(),
  boxId: z.string().nullable(),
  createdAt: instant,
  updatedAt: instant,
});

export const claimCreated = defineEvent('registry.claim.created', 1, claimData, byClaim);
/** Variations or reference images changed. */
export const claimUpdated = defineEvent('registry.claim.updated', 1, claimData, byClaim);
/** Verified, or re-verified at another tier. */
export const claimVerified = defineEvent('registry.claim.verified', 1, claimData, byClaim);
export const claimRejected = defineEvent(
  'registry.claim.rejected',
  1,
  claimData.extend({ reason: z.string() }),
  byClaim,
);
export const claimDeleted = defineEvent(
  'registry.claim.deleted',
  1,
  z.object({
    claimId: z.string(),
    ownerPlatformId: z.string(),
    /** The box removed with the claim (a `registry.box.deleted` is published for it too). */
    boxId: z.string().nullable(),
    deletedAt: instant,
  }),
  byClaim,
);

const boxData = z.object({
  boxId: z.string(),
  claimId: z.string(),
  ownerPlatformId: z.string(),
  identityName: z.string(),
  variations: z.array(z.string()),
  entityType,
  verificationTier,
  policy,
  enforcement: enforcementLevel,
  /** The policy's configuration (docs/spec/service-interface.md, Policy configuration). */
  policyConfig: z.record(z.string(), z.unknown()),
  /** MONETIZE's royaltyRate, else 0. */
  royaltyRate: z.number().min(0).max(1),
  referenceImageUrls: z.array(z.string()),
  status: z.literal('active'),
  createdAt: instant,
  updatedAt: instant,
  /**
   * The version (ADR 0010) of the claim's newest event when this one was written: the claim state
   * the box carries. A consumer that meets the box before the claim's own events keeps that state,
   * so a claim event older than it (the claim's creation, still pending) is stale. Absent from
   * events written before it existed.
   */
  claimVersion: z.number().int().nonnegative().optional(),
});

export const boxCreated = defineEvent('registry.box.created', 1, boxData, byBox);
/** Policy, enforcement or configuration changed, or the claim's names or images did. */
export const boxUpdated = defineEvent('registry.box.updated', 1, boxData, byBox);
export const boxDeleted = defineEvent(
  'registry.box.deleted',
  1,
  z.object({
    boxId: z.string(),
    claimId: z.string(),
    ownerPlatformId: z.string(),
    identityName: z.string(),
    deletedAt: instant,
  }),
  byBox,
);

/**
 * A new claim shares a name with a verified claim of another account (issue #32, "Creators"): one
 * event per claim it meets, so that the verified claim's owner is told. The envelope's platformId
 * is that owner. It versions no entity: it changes neither claim.
 */
export const claimConflictDetected = defineEvent(
  'registry.claim_conflict.detected',
  1,
  z.object({
    /** The new claim, pending the operator's review. */
    claimId: z.string(),
    name: z.string(),
    claimantPlatformId: z.string(),
    /** The verified claim it meets, and its owner. */
    existingClaimId: z.string(),
    existingName: z.string(),
    existingOwnerPlatformId: z.string(),
    detectedAt: instant,
  }),
);

export const claimEvents = [claimCreated, claimUpdated, claimVerified, claimRejected, claimDeleted] as const;
export const boxEvents = [boxCreated, boxUpdated, boxDeleted] as const;

/** Every event the registry publishes (collected by the package's `allEvents`). */
export const registryEvents = [...claimEvents, claimConflictDetected, ...boxEvents] as const;
