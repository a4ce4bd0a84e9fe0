import { entityVersionOf, licenseEvents, type EventEnvelope } from '@svc/contracts';
import type { Queryable } from '@svc/storage';
import { platformNow } from './platform-clock';
import type { EnforcementContext } from './ports';
import { closeViolation, lockCase } from './violation-lifecycle';

/**
 * licensing.license.*: which platform holds an active license on which box. When a platform's
 * license becomes active, its open violations on the box are resolved as licensed (and its
 * future avatars there no longer break LICENSE or MONETIZE).
 */
export async function projectLicenseEvent(
  ctx: EnforcementContext,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  const definition = licenseEvents.find((d) => d.type === envelope.type);
  // A type outside the bindings is a bug: fail, so it is dead-lettered and seen.
  if (definition === undefined) throw new Error(`No handler for ${envelope.type}`);
  const d = definition.parse(envelope).data;
  const applied = await ctx.licenses.apply(tx, {
    licenseId: d.licenseId,
    boxId: d.boxId,
    licenseePlatformId: d.licenseePlatformId,
    status: d.status,
    updatedAt: new Date(envelope.occurredAt),
    // The license's version orders its events (ADR 0010): a late 'active' never follows an end.
    version: entityVersionOf(envelope),
  });
  if (!applied || d.status !== 'active') return;
  const now = await platformNow(ctx, tx, d.licenseePlatformId);
  for (const violationId of await ctx.violations.openIdsOnBox(tx, d.boxId, d.licenseePlatformId)) {
    const current = await lockCase(ctx, tx, violationId);
    await closeViolation(
      ctx,
      tx,
      current,
      {
        kind: 'resolve',
        resolution: 'licensed',
        licenseId: d.licenseId,
        notes: 'An active license covers the box',
      },
      now,
    );
  }
}
