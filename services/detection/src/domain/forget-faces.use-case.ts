import type { Database } from '@svc/ports';
import type { ReferenceImageRepository } from '../data-access/reference-image.repository';
import type { IdentityCatalogue } from './identity-catalogue';
import type { IdentityStore } from './ports';

export interface ForgetFacesDeps {
  db: Database;
  identities: IdentityStore;
  referenceImages: Pick<ReferenceImageRepository, 'forgetFaces'>;
  catalogue: IdentityCatalogue;
}

/**
 * The registry deleted a claim or some of its images, or rejected the claim: their reference
 * images and face descriptors go now, before the registry answers (docs/spec/contracts.md §15).
 * This replica's index forgets them at once; every other replica confirms a face match in the
 * database before it answers, so none matches them after this returns. The registry's event that
 * follows finds nothing left to remove. Idempotent.
 */
export async function forgetFaces(
  deps: ForgetFacesDeps,
  request: { claimId: string; imageIds?: string[] | undefined },
): Promise<{ forgotten: number }> {
  const forgotten = await deps.db.transaction(async (tx) => {
    await deps.identities.lockForChange(tx);
    const removed = await deps.referenceImages.forgetFaces(tx, request.claimId, request.imageIds);
    // Replicas read the identity again: its faces (and fingerprints) without the removed images.
    if (removed > 0) await deps.identities.touch(tx, request.claimId);
    return removed;
  });
  deps.catalogue.forgetFaces([request.claimId]);
  return { forgotten };
}
