import { boxCreated, boxDeleted, boxUpdated, type EventEnvelope } from '@svc/contracts';
import type { Queryable } from '@svc/storage';
import type { BoxProjectionStore } from './ports';

/**
 * Keeps the box projection from registry.box.*: created/updated replace the box (unless a newer
 * state is stored); deleted marks it deleted, and the licenses on it stay as they are.
 */
export async function projectBoxEvent(
  boxes: BoxProjectionStore,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  if (envelope.type === boxDeleted.type) {
    const { data } = boxDeleted.parse(envelope);
    await boxes.markDeleted(tx, data.boxId, new Date(data.deletedAt));
    return;
  }
  const definition = envelope.type === boxCreated.type ? boxCreated : boxUpdated;
  const { data } = definition.parse(envelope);
  await boxes.upsert(tx, {
    boxId: data.boxId,
    claimId: data.claimId,
    ownerPlatformId: data.ownerPlatformId,
    identityName: data.identityName,
    policy: data.policy,
    policyConfig: data.policyConfig,
    royaltyRate: data.royaltyRate,
    updatedAt: new Date(data.updatedAt),
    deletedAt: null,
  });
}
