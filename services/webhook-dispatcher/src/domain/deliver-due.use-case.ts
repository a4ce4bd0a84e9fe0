import { webhookEndpointDisabled } from '@svc/contracts/webhook-dispatcher';
import { appendToOutbox } from '@svc/messaging';
import type { Queryable } from '@svc/ports';
import { fanOutEvents, inCurrentTrace } from './fan-out-event.use-case';
import type {
  Attempt,
  Delivery,
  DeliveryUpdate,
  DueDeliveries,
  Lease,
  SendingEndpoint,
  SucceededBatch,
  WebhookContext,
} from './ports';
import { endpointDisabledEvent } from './public-events';
import { checkBeforeSending, recordOutcome } from './record-outcome';
import { breakerCooldownMs, failedForTooLong, retryDelayMs } from './retry-schedule';
import { send } from './send-attempt';

export { excerptOf, RESPONSE_EXCERPT_CHARS } from './send-attempt';

export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  /** Set when this attempt disabled the endpoint. */
  disabled?: 'gone' | 'failing';
  eventCreatedAt: Date;
}

async function disable(
  ctx: WebhookContext,
  tx: Queryable,
  endpoint: SendingEndpoint,
  reason: 'gone' | 'failing',
  lastError: string | null,
  now: Date,
): Promise<void> {
  await ctx.endpoints.disable(tx, endpoint.id, reason, now);
  await appendToOutbox(
    tx,
    webhookEndpointDisabled.create(
      { endpointId: endpoint.id, url: endpoint.url, reason, disabledAt: now.toISOString(), lastError },
      { occurredAt: now, platformId: endpoint.platformId },
    ),
  );
  // The platform hears of it on its other endpoints (those that want webhook.endpoint_disabled).
  const event = endpointDisabledEvent({
    platformId: endpoint.platformId,
    endpointId: endpoint.id,
    url: endpoint.url,
    reason,
    disabledAt: now,
    lastError,
  });
  await fanOutEvents(ctx, tx, inCurrentTrace([event]), now, { excludeEndpointId: endpoint.id });
  ctx.logger.warn(
    { endpointId: endpoint.id, platformId: endpoint.platformId, reason },
    'webhook endpoint disabled',
  );
}

interface Sent {
  delivery: Delivery;
  attemptedAt: Date;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  error: string | null;
}

/**
 * Within one batch, how long the database's word that the endpoint is enabled stands before the
 * next POST asks again: a platform that disables an endpoint mid-batch is obeyed within it.
 */
export const LEASE_RECHECK_MS = 1000;

/** How the worker records a batch and which lease it holds. */
export interface BatchRecording {
  /** The worker that holds the endpoint's lease: recording the batch releases it. */
  owner: string;
  /**
   * Until when (service clock) no other worker can have taken a lease this worker took at `at`:
   * its expiry less a margin for the clocks of other replicas. Before then, only the batch's first
   * POST needs the database's check.
   */
  surelyHeldUntil(at: Date): Date;
  /**
   * Records a batch that all succeeded, with other endpoints' batches (group commit); false when
   * the lease it was sent under has been taken by another worker (nothing recorded).
   */
  succeeded(batch: SucceededBatch): Promise<boolean>;
}

/**
 * Sends the due deliveries the lease handed over for one endpoint (the caller holds the lease),
 * one at a time and in order, stopping at the first that fails; then records every attempt and
 * releases the lease: a batch that all succeeded in one statement shared with the other
 * endpoints' batches (ADR 0022); otherwise in one transaction: successes, a retry on the
 * schedule, `failed` when the schedule is spent, or the endpoint disabled (410 Gone at once; or
 * no success for days). A crash before the record re-sends the batch (at least once).
 *
 * The lease is checked before a POST unless it is surely still held (taken at `leasedAt` less than
 * its length, less a margin, ago) and the last word on it is under a second old; the record is
 * fenced by it (issue #34). A worker that stalled past its lease, whose endpoint another replica
 * has taken and is serving, sends no more of its batch and records none of it. The first word is
 * the lease itself (ADR 0036): the batch was read after the lease statement committed, so it
 * holds no delivery another worker has recorded since, and a first POST within a second of the
 * lease needs no check. A delivery found no longer due stops the batch (the deliveries of a batch
 * are the endpoint's oldest, so if one is still due, so is the rest). Returns the recorded
 * attempts (none when the lease was lost).
 */
export async function deliverDue(
  ctx: WebhookContext,
  { endpoint, due, leaseToken }: DueDeliveries,
  recording: BatchRecording,
  leasedAt: Date = ctx.clock.now(),
): Promise<AttemptOutcome[]> {
  if (due.length === 0) return [];
  const endpointId = endpoint.id;
  const lease: Lease = { endpointId, owner: recording.owner, token: leaseToken };
  const lost = (sentCount: number): AttemptOutcome[] => {
    ctx.logger.warn(
      { endpointId, sent: sentCount, batch: due.length },
      'webhook worker: lease lost to another worker mid-batch; its batch stops, unrecorded',
    );
    return [];
  };
  const sent: Sent[] = [];
  const surelyHeldUntil = recording.surelyHeldUntil(leasedAt).getTime();
  let checkedAt = leasedAt.getTime();
  for (const delivery of due) {
    const at = ctx.clock.now().getTime();
    const stillSure = at < surelyHeldUntil && at - checkedAt < LEASE_RECHECK_MS;
    if (!stillSure) {
      const check = await checkBeforeSending(ctx, lease, delivery);
      if (check === 'lost') return lost(sent.length);
      if (check === 'stop') break;
      checkedAt = at;
    }
    const attemptedAt = ctx.clock.now();
    const result = await send(ctx, endpoint, delivery);
    sent.push({ delivery, attemptedAt, ...result });
    // A failure ends the batch: the later deliveries wait behind its retry (oldest first).
    if (result.error !== null) break;
  }
  if (sent.length === 0) return [];

  const now = ctx.clock.now();
  const outcomes: AttemptOutcome[] = [];
  const attempts: Attempt[] = [];
  const updates: DeliveryUpdate[] = [];
  for (const s of sent) {
    const succeeded = s.error === null;
    const number = s.delivery.attemptCount + 1;
    const gone = s.responseStatus === 410;
    const delay = succeeded || gone || s.delivery.manual ? null : retryDelayMs(number, ctx.retry);
    const nextRetryAt = delay === null ? null : new Date(now.getTime() + delay);
    outcomes.push({
      deliveryId: s.delivery.id,
      endpointId,
      outcome: succeeded ? 'succeeded' : 'failed',
      responseStatus: s.responseStatus,
      durationMs: s.durationMs,
      error: s.error,
      eventCreatedAt: s.delivery.eventCreatedAt,
    });
    attempts.push({
      deliveryId: s.delivery.id,
      number,
      attemptedAt: s.attemptedAt,
      outcome: succeeded ? 'succeeded' : 'failed',
      responseStatus: s.responseStatus,
      responseBody: s.responseBody,
      durationMs: s.durationMs,
      error: s.error,
      nextRetryAt,
    });
    updates.push({
      id: s.delivery.id,
      status: succeeded ? 'succeeded' : nextRetryAt === null ? 'failed' : 'pending',
      attemptCount: number,
      nextAttemptAt: nextRetryAt,
      lastResponseStatus: s.responseStatus,
      lastError: s.error,
    });
  }
  const last = sent[sent.length - 1] as Sent;
  const lastOutcome = outcomes[outcomes.length - 1] as AttemptOutcome;
  const anySucceeded = outcomes.some((o) => o.outcome === 'succeeded');

  if (lastOutcome.outcome === 'succeeded') {
    // Every attempt succeeded (a failure ends the batch): the attempts, the deliveries and the
    // endpoint's closed circuit in one statement (ADR 0022).
    const recorded = await recordOutcome(
      ctx,
      last.delivery.id,
      () => recording.succeeded({ endpointId, leaseToken, attempts, updates, succeededAt: now }),
      true,
    );
    return recorded ? outcomes : lost(sent.length);
  }
  const recorded = await recordOutcome(ctx, last.delivery.id, async (tx) => {
    // First, and fenced: the lease released only if it is still this one, the endpoint's row then
    // locked until commit, so no other worker takes it while the rest is written.
    if (!(await ctx.endpoints.releaseLease(tx, lease, now))) return false;
    await ctx.attempts.insertMany(tx, attempts);
    await ctx.deliveries.recordAttempts(tx, updates);
    if (anySucceeded) await ctx.endpoints.recordSuccess(tx, endpointId, now);
    const streak = await ctx.endpoints.recordFailure(
      tx,
      endpointId,
      now,
      ctx.retry.breakerThreshold,
      new Date(now.getTime() + breakerCooldownMs(ctx.retry)),
    );
    if (last.responseStatus === 410) lastOutcome.disabled = 'gone';
    else if (failedForTooLong(streak.failingSince, now, ctx.retry)) lastOutcome.disabled = 'failing';
    if (lastOutcome.disabled !== undefined)
      await disable(ctx, tx, endpoint, lastOutcome.disabled, last.error, now);
    return true;
  });
  if (!recorded) return lost(sent.length);
  if (lastOutcome.disabled !== undefined) {
    ctx.kick();
    ctx.kickOutbox();
  }
  return outcomes;
}
