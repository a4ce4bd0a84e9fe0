import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { licenseEvents } from '@svc/contracts/licensing';
import type { Queryable } from '@svc/ports';
import { platformNow } from '@svc/clock';
import type { UsesPorts } from './ports';
import { tierCovers } from '@svc/commercial-intent';
import { isCommercialAvatar } from './policy-breach';
import { closeViolation, lockCase } from './violation-lifecycle';

/** Statuses in which a license no longer covers anything. */
const LAPSED = ['expired', 'revoked', 'cancelled'];

/**
 * licensing.license.*: which platform holds an active license of which tier on which box. When a
 * platform's license becomes active, its open violations on the box whose use the tier covers are
 * resolved as licensed (and its future avatars there no longer break LICENSE or MONETIZE). When it
 * lapses (expired, revoked, cancelled), the platform's avatars matched to the box are evaluated
 * again against the licenses that remain: those that still break the policy get a new violation
 * and grace period (docs/spec/contracts.md §8).
 */
export async function projectLicenseEvent(
  ctx: UsesPorts<
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'licenses'
    | 'clocks'
    | 'clock'
    | 'outbox'
  >,
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
    tier: d.tier,
    updatedAt: new Date(envelope.occurredAt),
    // The license's version orders its events (ADR 0010): a late 'active' never follows an end.
    version: entityVersionOf(envelope),
  });
  if (!applied) return;
  if (LAPSED.includes(d.status)) {
    // Evaluated again against the licenses that remain: a remaining tier that covers an avatar's
    // use keeps it licensed, the others get a new violation.
    await ctx.avatars.reevaluateMatching(tx, d.licenseePlatformId, d.boxId, ctx.clock.now());
    return;
  }
  if (d.status !== 'active') return;
  const now = await platformNow(ctx, tx, d.licenseePlatformId);
  for (const violationId of await ctx.violations.openIdsOnBox(tx, d.boxId, d.licenseePlatformId)) {
    const current = await lockCase(ctx, tx, violationId);
    // A personal or creator license does not cover a commercial avatar: that violation stays open.
    if (!tierCovers(d.tier, isCommercialAvatar(current.avatar))) continue;
    await closeViolation(
      ctx,
      tx,
      current,
      {
        kind: 'resolve',
        resolution: 'licensed',
        resolvedBy: 'license',
        evidence: { license: { id: d.licenseId, tier: d.tier } },
        licenseId: d.licenseId,
        notes: 'An active license covers the box',
      },
      now,
    );
  }
}
