import type { EventEnvelope } from '@svc/contracts/common';
import { referenceImageEnrolled } from '@svc/contracts/detection';
import type { Queryable } from '@svc/ports';
import type { ClaimStore } from './ports';

/**
 * Shows detection's enrolment of a reference image on the claim (`referenceImages[].face.status`,
 * docs/spec/contracts.md §15). An image replaced or removed since is left alone: its successor has
 * its own enrolment on the way. Not a change of the claim: no version, no event.
 */
export async function recordFaceStatus(
  claims: Pick<ClaimStore, 'recordFaceStatus'>,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  if (envelope.type !== referenceImageEnrolled.type) return;
  const { data } = referenceImageEnrolled.parse(envelope);
  await claims.recordFaceStatus(tx, {
    claimId: data.claimId,
    imageId: data.imageId,
    url: data.url,
    status: data.faceStatus,
  });
}
