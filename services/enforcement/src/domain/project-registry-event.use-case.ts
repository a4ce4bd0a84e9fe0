import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { boxCreated, boxDeleted, boxUpdated } from '@svc/contracts/registry';
import type { Queryable } from '@svc/ports';
import { platformNow } from '@svc/clock';
import type { UsesPorts } from './ports';
import { closeViolation, lockCase } from './violation-lifecycle';

/**
 * registry.box.*: the box projection (pricing for resolution options), ordered by the box's
 * version (ADR 0010); a deletion is final whatever arrives after it. A deleted box cancels its
 * active and paused grace periods (contracts: "grace periods become cancelled"); their violations
 * are dismissed without a violation event.
 */
export async function projectRegistryEvent(
  ctx: UsesPorts<
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'boxes'
    | 'clocks'
    | 'clock'
    | 'outbox'
  >,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  if (envelope.type === boxDeleted.type) {
    const d = boxDeleted.parse(envelope).data;
    await ctx.boxes.markDeleted(tx, d, new Date(d.deletedAt));
    for (const violationId of await ctx.violations.openIdsOnBox(tx, d.boxId)) {
      const current = await lockCase(ctx, tx, violationId);
      await closeViolation(
        ctx,
        tx,
        current,
        { kind: 'cancel' },
        await platformNow(ctx, tx, current.violation.platformId),
      );
    }
    return;
  }
  const definition = envelope.type === boxCreated.type ? boxCreated : boxUpdated;
  const d = definition.parse(envelope).data;
  await ctx.boxes.upsert(tx, {
    boxId: d.boxId,
    claimId: d.claimId,
    ownerPlatformId: d.ownerPlatformId,
    identityName: d.identityName,
    policy: d.policy,
    enforcement: d.enforcement,
    policyConfig: d.policyConfig,
    updatedAt: new Date(d.updatedAt),
    version: entityVersionOf(envelope),
    deletedAt: null,
  });
}
