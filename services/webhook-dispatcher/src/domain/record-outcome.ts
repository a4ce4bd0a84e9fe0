import { performance } from 'node:perf_hooks';
import { isTransientFailure } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { Delivery, Lease, LeaseCheck, WebhookContext } from './ports';

// Recording a sent batch, and checking its lease, through a database outage.

// How long the outcome of a sent delivery is held while the database is unavailable.
const RECORD_BUDGET_MS = 60_000;
const RECORD_RETRY_CAP_MS = 2000;

/**
 * Records what happened to a sent delivery. Once the endpoint has answered, forgetting the answer
 * would send the delivery again (a second delivery after a 200), so a database outage is waited
 * out here (capped backoff, up to a minute); only a longer outage or a real error gives up, and
 * then the delivery is sent again later (at least once). The record is fenced by the lease: if
 * another worker has taken the endpoint meanwhile, `record` writes nothing and says so (false).
 */
export function recordOutcome(
  ctx: WebhookContext,
  deliveryId: string,
  record: (q: Queryable) => Promise<boolean>,
  oneStatement = false,
): Promise<boolean> {
  return waitingOutOutages(ctx, deliveryId, 'recording a sent delivery', () =>
    // One statement is a transaction of its own: no BEGIN and COMMIT round trips around it.
    oneStatement ? record(ctx.db) : ctx.db.transaction(record),
  );
}

/** Runs `run` again after a transient failure (database unavailable), for up to RECORD_BUDGET_MS. */
async function waitingOutOutages<T>(
  ctx: WebhookContext,
  deliveryId: string,
  what: string,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (err) {
      if (!isTransientFailure(err) || performance.now() - started > RECORD_BUDGET_MS) throw err;
      const delay = Math.min(RECORD_RETRY_CAP_MS, 100 * 2 ** Math.min(attempt - 1, 10));
      ctx.logger.warn({ err, deliveryId, attempt, delay }, `webhook worker: ${what}, retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Whether the lease still allows sending `delivery`. A database outage is waited out like a
 * record's (the batch's sent deliveries wait for it anyway); past that, the batch stops there and
 * what was sent is recorded.
 */
export async function checkBeforeSending(
  ctx: WebhookContext,
  lease: Lease,
  delivery: Delivery,
): Promise<LeaseCheck> {
  try {
    return await waitingOutOutages(ctx, delivery.id, 'checking the lease', () =>
      ctx.endpoints.checkLease(ctx.db, lease, delivery, ctx.clock.now()),
    );
  } catch (err) {
    ctx.logger.error({ err, endpointId: lease.endpointId }, 'webhook worker: checking the lease failed');
    return 'stop';
  }
}
