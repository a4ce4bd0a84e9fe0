import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { boxCreated, boxDeleted, boxUpdated, type BoxSnapshot } from '@svc/contracts/registry';
import type { Queryable } from '@svc/ports';
import { fillOnMiss } from '@svc/projection';
import type { BoxView } from './box';
import type { BoxProjectionStore, LicensingContext } from './ports';

/**
 * Keeps the box projection from registry.box.*: created/updated replace the box (unless a newer
 * state, by the box's version, is stored: ADR 0010); deleted marks it deleted for good (a
 * tombstone when the creation has not arrived yet), and the licenses on it stay as they are.
 */
export async function projectBoxEvent(
  boxes: BoxProjectionStore,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  if (envelope.type === boxDeleted.type) {
    const { data } = boxDeleted.parse(envelope);
    await boxes.markDeleted(tx, data, new Date(data.deletedAt));
    return;
  }
  const definition = envelope.type === boxCreated.type ? boxCreated : boxUpdated;
  const { data } = definition.parse(envelope);
  await boxes.upsert(tx, boxViewOf(data, entityVersionOf(envelope)));
}

/** The projection's box from a box event's data (or the registry's read-through answer). */
export function boxViewOf(data: BoxSnapshot['entity'], version: number): BoxView {
  return {
    boxId: data.boxId,
    claimId: data.claimId,
    ownerPlatformId: data.ownerPlatformId,
    identityName: data.identityName,
    policy: data.policy,
    policyConfig: data.policyConfig,
    royaltyRate: data.royaltyRate,
    updatedAt: new Date(data.updatedAt),
    version,
    deletedAt: null,
  };
}

/**
 * Read-through on a projection miss (ADR 0010): a box created a moment ago may not have reached
 * the projection yet, so the registry is asked and its answer stored like an event at the box's
 * current version. Nothing is stored when the registry says there is no such box (the caller's
 * lookup then answers 404); SERVICE_UNAVAILABLE when the registry cannot answer.
 */
export async function ensureBoxProjected(
  ctx: Pick<LicensingContext, 'db' | 'boxes' | 'registry'>,
  boxId: string,
): Promise<void> {
  await fillOnMiss(
    {
      db: ctx.db,
      source: ctx.registry,
      isProjected: async (q, id) => (await ctx.boxes.find(q, id)) !== null,
      store: (tx, snapshot) => ctx.boxes.upsert(tx, boxViewOf(snapshot.entity, snapshot.version)),
    },
    boxId,
  );
}
