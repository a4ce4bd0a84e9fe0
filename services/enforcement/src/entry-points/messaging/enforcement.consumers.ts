import type { EventEnvelope } from '@svc/contracts/common';
import { logEntryAppended } from '@svc/contracts/licensing';
import type { Subscription } from '@svc/messaging';
import { projectionSubscription } from '@svc/projection';
import type { Database, Queryable } from '@svc/storage';
import type { EnforcementContext } from '../../domain/ports';
import { projectLicenseEvent } from '../../domain/project-license-event.use-case';
import { projectRegistryEvent } from '../../domain/project-registry-event.use-case';
import { startScanOnIndexed } from '../../domain/scan-new-box.use-case';

export const BOX_QUEUE = 'enforcement.boxes';
export const LICENSE_QUEUE = 'enforcement.licenses';
export const BOX_INDEXED_QUEUE = 'enforcement.box-indexed';
export const LOG_ENTRIES_QUEUE = 'enforcement.log-entries';

/**
 * The box projection (registry.box.*; a deleted box cancels its grace periods), the license
 * projection (licensing.license.*; an active license resolves violations) and new boxes' scans
 * (detection.box.indexed). Each event is applied once per queue; events they cause are relayed
 * once the transaction commits.
 */
export function enforcementSubscriptions(
  db: Database,
  ctx: EnforcementContext,
  scanWaiting: () => void,
): Subscription[] {
  // Bound to the patterns the system's topology gives the queue, each event applied once (@svc/projection).
  const consumer = (
    queue: string,
    apply: (tx: Queryable, envelope: EventEnvelope) => Promise<void>,
    after: () => void = () => undefined,
  ): Subscription =>
    projectionSubscription({
      queue,
      db,
      clock: ctx.clock,
      apply,
      afterCommit: () => {
        ctx.eventsCommitted();
        after();
      },
    });
  return [
    consumer(BOX_QUEUE, (tx, envelope) => projectRegistryEvent(ctx, tx, envelope)),
    consumer(
      LICENSE_QUEUE,
      (tx, envelope) => projectLicenseEvent(ctx, tx, envelope),
      // A lapsed license leaves avatars to evaluate again.
      () => ctx.workWaiting(),
    ),
    consumer(
      BOX_INDEXED_QUEUE,
      async (tx, envelope) => {
        await startScanOnIndexed(ctx, tx, envelope);
      },
      scanWaiting,
    ),
    // Where a violation's or appeal's decision sits in licensing's transparency log (docs/spec/contracts.md §16).
    consumer(LOG_ENTRIES_QUEUE, async (tx, envelope) => {
      const { data } = logEntryAppended.parse(envelope);
      const at = { index: data.index, leafHash: data.leafHash };
      if (data.resourceType === 'violation') await ctx.violations.recordLogEntry(tx, data.resourceId, at);
      if (data.resourceType === 'appeal') await ctx.appeals.recordLogEntry(tx, data.resourceId, at);
    }),
  ];
}
