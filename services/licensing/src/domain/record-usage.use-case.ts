import { usageReported, type EventEnvelope } from '@svc/contracts';
import type { Queryable } from '@svc/storage';
import type { UsageStore } from './ports';

/**
 * Keeps the usage a license's detail shows from billing.usage.reported: the highest version per
 * license and period wins. `messages` is the reported `messages` metric (else `interactions`).
 */
export async function recordUsageEvent(
  usage: UsageStore,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  const { data } = usageReported.parse(envelope);
  await usage.record(tx, {
    licenseId: data.licenseId,
    period: data.period,
    version: data.version,
    subscribers: data.users,
    messages: data.metrics.messages ?? data.metrics.interactions ?? 0,
    revenueCents: data.totalRevenueCents,
    royaltyDueCents: data.royaltyDueCents,
  });
}
