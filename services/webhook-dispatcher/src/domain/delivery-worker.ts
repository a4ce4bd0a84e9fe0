import { randomBase62 } from '@svc/ids';
import { deliverDue, type AttemptOutcome, type BatchRecording } from './deliver-due.use-case';
import { batchesOf, DeliveryCache } from './delivery-cache';
import { GroupCommit } from './group-commit';
import type { Delivery, DueDeliveries, LeasedEndpoint, SucceededBatch, WebhookContext } from './ports';

export interface DeliveryWorkerOptions {
  /** Endpoints served at the same time (each with one delivery in flight). Default 32. */
  concurrency?: number;
  /** How often due retries are looked for when nothing kicks the worker. Default 500 ms. */
  pollIntervalMs?: number;
  /**
   * How long an endpoint stays leased to this worker without a renewal. Default 6 s: a worker
   * renews its leases every third of it while it works, so a killed one holds its endpoints at most
   * this long and a restarted dispatcher resumes their deliveries within 10 s. One that stalls
   * longer (a paused process) finds the lease lost when it resumes and sends nothing more of its
   * batch: the lease is checked before a batch's first POST and before any later one once the
   * lease is no longer surely held (issue #34).
   */
  leaseMs?: number;
  /** Deliveries sent to one endpoint under one lease, at most (fairness). Default 20. */
  maxPerLease?: number;
  /** Called after every attempt (metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}

/**
 * Sends due deliveries. Each endpoint is leased in the database (FOR UPDATE SKIP LOCKED), so
 * across every replica one delivery per endpoint is in flight, oldest first; different
 * endpoints are served concurrently, so a slow or dead endpoint only holds its own slot.
 *
 * Round trips are shared (ADR 0022): one statement leases every endpoint a tick can take and the
 * next names the first batch of each (up to `maxPerLease`), whose deliveries the intake handed over
 * in memory when it committed them (ADR 0036; those it did not are read); each batch is sent in order;
 * the batches that all succeeded are recorded together, lease released, in one statement
 * (GroupCommit). A lease serves one batch, then the endpoint goes back to the pool, least
 * recently served first. Each lease taken has a new token (fencing): a POST sent when the lease
 * may have run out, or more than a second after the last word on it, is preceded by a check that
 * this worker still holds it unexpired, and renewals, releases and records take effect only while
 * it does (#34).
 */
/** How long a lease on an endpoint lasts unless renewed (DeliveryWorkerOptions.leaseMs). */
export const DEFAULT_LEASE_MS = 6000;

export class DeliveryWorker {
  readonly owner = `worker_${randomBase62(12)}`;
  /** The endpoints being served, with their lease token. */
  private readonly inFlight = new Map<string, { run: Promise<void>; token: number }>();
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly maxPerLease: number;
  private timer: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private running = false;
  private readonly recording: BatchRecording;
  /** The deliveries the intake of this process committed, until a lease hands them to a batch. */
  private readonly cache = new DeliveryCache();

  constructor(
    private readonly ctx: WebhookContext,
    private readonly options: DeliveryWorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 32;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.maxPerLease = options.maxPerLease ?? 20;
    const succeeded = new GroupCommit<SucceededBatch, boolean>(async (batches) => {
      const recorded = new Set(await this.ctx.deliveries.recordSucceeded(this.ctx.db, this.owner, batches));
      return batches.map((b) => recorded.has(b.endpointId));
    });
    // Another replica takes a lease once its own clock passes lease_until: a third of the lease
    // is left to the clocks' disagreement (and to the lease statement's own time).
    const margin = Math.floor(this.leaseMs / 3);
    this.recording = {
      owner: this.owner,
      succeeded: (batch) => succeeded.add(batch),
      surelyHeldUntil: (at) => new Date(at.getTime() + this.leaseMs - margin),
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const poll = () => {
      this.kick();
      this.timer = setTimeout(poll, this.pollIntervalMs);
      this.timer.unref();
    };
    poll();
    this.renewal = setInterval(() => this.renewLeases(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
  }

  /** Keeps the endpoints being worked on leased: a delivery may take longer than a lease (10 s timeout). */
  private renewLeases(): void {
    const leases = [...this.inFlight].map(([endpointId, { token }]) => ({ endpointId, token }));
    if (leases.length === 0) return;
    const until = new Date(this.ctx.clock.now().getTime() + this.leaseMs);
    this.ctx.endpoints
      .renewLeases(this.ctx.db, this.owner, leases, until)
      .catch((err: unknown) => this.ctx.logger.warn({ err }, 'webhook worker: lease renewal failed'));
  }

  /** Keeps deliveries just committed to send when a lease names them, and looks for due ones now. */
  handOff(deliveries: Delivery[]): void {
    this.cache.remember(deliveries);
    this.kick();
  }

  /** Looks for due deliveries now. */
  kick(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Stops looking for work and waits for the deliveries in flight. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.run));
    if (this.renewal !== undefined) clearInterval(this.renewal);
  }

  private async tick(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const now = this.ctx.clock.now();
    let taken: LeasedEndpoint[] = [];
    let leased: DueDeliveries[];
    try {
      taken = await this.ctx.endpoints.leaseDue(
        this.ctx.db,
        this.owner,
        free,
        [...this.inFlight.keys()],
        now,
        new Date(now.getTime() + this.leaseMs),
        this.maxPerLease,
      );
      leased = await batchesOf(this.ctx, this.cache, taken);
    } catch (err) {
      this.ctx.logger.error({ err }, 'webhook worker: leasing endpoints failed');
      // Taken but not served (reading their batches failed): back to the pool now, not at expiry.
      for (const t of taken) void this.release(t.endpoint.id, t.leaseToken);
      return;
    }
    for (const found of leased) {
      const endpointId = found.endpoint.id;
      const run = this.serve(found, now).finally(() => {
        this.inFlight.delete(endpointId);
        this.kick();
      });
      this.inFlight.set(endpointId, { run, token: found.leaseToken });
    }
  }

  /** Sends one leased batch; recording it releases the lease (released here if nothing was recorded). */
  private async serve(found: DueDeliveries, leasedAt: Date): Promise<void> {
    const endpointId = found.endpoint.id;
    let recorded = false;
    try {
      const outcomes = await deliverDue(this.ctx, found, this.recording, leasedAt);
      recorded = outcomes.length > 0;
      for (const outcome of outcomes) this.options.onAttempt?.(outcome);
    } catch (err) {
      this.ctx.logger.error({ err, endpointId }, 'webhook worker: delivery failed unexpectedly');
    } finally {
      if (!recorded) await this.release(endpointId, found.leaseToken);
    }
  }

  private async release(endpointId: string, token: number): Promise<void> {
    await this.ctx.endpoints
      .releaseLease(this.ctx.db, { endpointId, owner: this.owner, token }, this.ctx.clock.now())
      .then(
        () => undefined,
        (err: unknown) => this.ctx.logger.error({ err, endpointId }, 'webhook worker: lease release failed'),
      );
  }
}
