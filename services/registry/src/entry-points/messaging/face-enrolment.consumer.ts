import type { Clock } from '@svc/clock';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { recordFaceStatus } from '../../domain/record-face-status.use-case';
import type { ClaimStore } from '../../domain/ports';
import { patternsOf } from '@svc/contracts/topology';

/** detection.reference_image.enrolled → the face status on the claim's reference image. */
export function faceEnrolmentSubscription(deps: {
  db: Database;
  claims: ClaimStore;
  clock: Clock;
}): Subscription {
  const queue = 'registry.face-enrolment';
  return {
    queue,
    patterns: patternsOf(queue),
    handler: idempotentHandler({
      db: deps.db,
      consumer: queue,
      clock: deps.clock,
      handle: (tx, envelope) => recordFaceStatus(deps.claims, tx, envelope),
    }),
  };
}
