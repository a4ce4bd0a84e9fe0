import type { Delivery, DueDeliveries, LeasedEndpoint, WebhookContext } from './ports';

/**
 * The deliveries the intake committed, kept by the worker of the same process until it sends them
 * (ADR 0036): the lease statement names an endpoint's due deliveries and this supplies them, so a
 * delivery's payload is not read back from the database it was just written to. The database
 * stays the authority on what is due and in which order (retries, manual re-sends, other
 * replicas' intake, a restart): what is not here, or has been attempted since, is read.
 *
 * Bounded: past `maxEntries` the oldest are forgotten (they are read when their turn comes). A
 * delivery leaves when a lease hands it to a batch; one sent by another replica is forgotten in
 * its turn.
 */
export class DeliveryCache {
  private readonly byId = new Map<string, Delivery>();

  constructor(private readonly maxEntries = 50_000) {}

  get size(): number {
    return this.byId.size;
  }

  remember(deliveries: Delivery[]): void {
    for (const delivery of deliveries) {
      if (this.byId.size >= this.maxEntries) {
        const oldest = this.byId.keys().next();
        if (oldest.done !== true) this.byId.delete(oldest.value);
      }
      this.byId.set(delivery.id, delivery);
    }
  }

  /** The delivery as it was committed, if kept, and no longer kept. */
  take(id: string): Delivery | undefined {
    const found = this.byId.get(id);
    if (found !== undefined) this.byId.delete(id);
    return found;
  }
}

/**
 * The leased endpoints' batches: each due delivery from the cache when it is there and still as
 * committed (never attempted), else read (one query for every endpoint of the tick). A batch
 * stops before a delivery that can no longer be read (deleted meanwhile): order is kept.
 */
export async function batchesOf(
  ctx: Pick<WebhookContext, 'db' | 'deliveries'>,
  cache: DeliveryCache,
  leased: LeasedEndpoint[],
): Promise<DueDeliveries[]> {
  const found = new Map<string, Delivery>();
  const missing: string[] = [];
  for (const { due } of leased) {
    for (const ref of due) {
      const kept = cache.take(ref.id);
      if (kept !== undefined && kept.attemptCount === ref.attemptCount)
        found.set(ref.id, kept.manual === ref.manual ? kept : { ...kept, manual: ref.manual });
      else missing.push(ref.id);
    }
  }
  if (missing.length > 0)
    for (const delivery of await ctx.deliveries.findMany(ctx.db, missing)) found.set(delivery.id, delivery);
  return leased.map(({ endpoint, leaseToken, due }) => {
    const batch: Delivery[] = [];
    for (const ref of due) {
      const delivery = found.get(ref.id);
      if (delivery === undefined) break;
      batch.push(delivery);
    }
    return { endpoint, leaseToken, due: batch };
  });
}
