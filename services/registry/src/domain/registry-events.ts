import type { EventEnvelope } from '@svc/contracts/common';
import {
  boxCreated,
  boxDeleted,
  boxUpdated,
  claimConflictDetected,
  claimCreated,
  claimDeleted,
  claimRejected,
  claimUpdated,
  claimVerified,
} from '@svc/contracts/registry';
import { royaltyRateOf, type Box } from './box';
import type { Claim } from './claim';

// The registry's events, built from the domain objects. The envelope's platformId is the owner.

function claimData(claim: Claim) {
  return {
    claimId: claim.id,
    ownerPlatformId: claim.ownerPlatformId,
    name: claim.name,
    variations: claim.variations,
    entityType: claim.entityType,
    status: claim.status,
    verificationTier: claim.verificationTier,
    referenceImages: claim.referenceImages.map(({ id, url, isPrimary }) => ({ id, url, isPrimary })),
    verifiedAt: claim.verifiedAt?.toISOString() ?? null,
    boxId: claim.boxId,
    createdAt: claim.createdAt.toISOString(),
    updatedAt: claim.updatedAt.toISOString(),
  };
}

function meta(platformId: string, occurredAt: Date) {
  return { platformId, occurredAt };
}

export type ClaimChange = 'created' | 'updated' | 'verified';

export function claimEvent(change: ClaimChange, claim: Claim, now: Date): EventEnvelope {
  const definition = { created: claimCreated, updated: claimUpdated, verified: claimVerified }[change];
  return definition.create(claimData(claim), meta(claim.ownerPlatformId, now));
}

export function claimRejectedEvent(claim: Claim, reason: string, now: Date): EventEnvelope {
  return claimRejected.create({ ...claimData(claim), reason }, meta(claim.ownerPlatformId, now));
}

/** registry.claim_conflict.detected, addressed to the owner of the verified claim the new one meets. */
export function claimConflictEvent(claim: Claim, existing: Claim, now: Date): EventEnvelope {
  return claimConflictDetected.create(
    {
      claimId: claim.id,
      name: claim.name,
      claimantPlatformId: claim.ownerPlatformId,
      existingClaimId: existing.id,
      existingName: existing.name,
      existingOwnerPlatformId: existing.ownerPlatformId,
      detectedAt: now.toISOString(),
    },
    meta(existing.ownerPlatformId, now),
  );
}

export function claimDeletedEvent(claim: Claim, now: Date): EventEnvelope {
  return claimDeleted.create(
    {
      claimId: claim.id,
      ownerPlatformId: claim.ownerPlatformId,
      boxId: claim.boxId,
      deletedAt: now.toISOString(),
    },
    meta(claim.ownerPlatformId, now),
  );
}

/** A box as registry.box.* describes it (also the registry's answer to a read-through, ADR 0010). */
export function boxEventData(box: Box, claim: Claim, claimVersion: number) {
  return {
    boxId: box.id,
    claimId: claim.id,
    ownerPlatformId: box.ownerPlatformId,
    identityName: claim.name,
    variations: claim.variations,
    entityType: claim.entityType,
    verificationTier: claim.verificationTier,
    policy: box.policy,
    enforcement: box.enforcement,
    policyConfig: box.policyConfig,
    royaltyRate: royaltyRateOf(box),
    referenceImageUrls: claim.referenceImages.map((image) => image.url),
    status: box.status,
    createdAt: box.createdAt.toISOString(),
    updatedAt: box.updatedAt.toISOString(),
    claimVersion,
  };
}

/**
 * registry.box.created or .updated; `claimVersion` is the claim's entity version in the same
 * transaction (after any claim event it appended), the claim state the event carries.
 */
export function boxEvent(
  change: 'created' | 'updated',
  box: Box,
  claim: Claim,
  claimVersion: number,
  now: Date,
): EventEnvelope {
  const definition = change === 'created' ? boxCreated : boxUpdated;
  return definition.create(boxEventData(box, claim, claimVersion), meta(box.ownerPlatformId, now));
}

export function boxDeletedEvent(box: Box, now: Date): EventEnvelope {
  return boxDeleted.create(
    {
      boxId: box.id,
      claimId: box.claimId,
      ownerPlatformId: box.ownerPlatformId,
      identityName: box.identityName,
      deletedAt: now.toISOString(),
    },
    meta(box.ownerPlatformId, now),
  );
}
