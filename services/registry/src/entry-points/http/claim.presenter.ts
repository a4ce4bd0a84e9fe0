import type { Claim } from '../../domain/claim';

// The public forms of a claim (docs/spec/service-interface.md, Claim): list form, detail form (verification
// and proofs for the owner only), and the create response with nextStep.

export function claimListItem(claim: Claim) {
  return {
    id: claim.id,
    name: claim.name,
    variations: claim.variations,
    entityType: claim.entityType,
    status: claim.status,
    verificationTier: claim.verificationTier,
    createdAt: claim.createdAt.toISOString(),
    ...(claim.verifiedAt === null ? {} : { verifiedAt: claim.verifiedAt.toISOString() }),
    hasBox: claim.boxId !== null,
    ...(claim.boxId === null ? {} : { boxId: claim.boxId }),
  };
}

export function claimDetail(claim: Claim, viewer: { isOwner: boolean }) {
  return {
    ...claimListItem(claim),
    ...(viewer.isOwner && claim.verification !== null
      ? {
          verification: {
            method: claim.verification.method,
            completedAt: claim.verification.completedAt.toISOString(),
            documents: claim.verification.documents,
          },
        }
      : {}),
    ...(viewer.isOwner
      ? {
          proofs: claim.proofs.map((proof) => ({
            type: proof.type,
            platform: proof.platform,
            handle: proof.handle,
            verifiedAt: proof.verifiedAt.toISOString(),
          })),
        }
      : {}),
    ...(viewer.isOwner && claim.rejectionReason !== null ? { rejectionReason: claim.rejectionReason } : {}),
    referenceImages: referenceImagesOf(claim),
  };
}

function referenceImagesOf(claim: Claim) {
  return claim.referenceImages.map(({ id, url, isPrimary, face }) => ({
    id,
    url,
    isPrimary,
    face: { status: face?.status ?? 'pending' },
  }));
}

/** A claim in the operator's review queue, with the other accounts' claims on the same name. */
export function reviewClaim(claim: Claim, conflicts: readonly Claim[]) {
  return {
    ...claimDetail(claim, { isOwner: true }),
    ownerPlatformId: claim.ownerPlatformId,
    conflicts: conflicts.map((other) => ({
      ...claimListItem(other),
      ownerPlatformId: other.ownerPlatformId,
      referenceImages: referenceImagesOf(other),
    })),
    alreadyProtected: conflicts.some((other) => other.status === 'verified'),
  };
}
