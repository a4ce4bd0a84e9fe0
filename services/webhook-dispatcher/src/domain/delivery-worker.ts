import { randomBase62 } from '@svc/ids';
import { deliverDue, type AttemptOutcome } from './deliver-due.use-case';
import type { WebhookContext } from './ports';

export interface DeliveryWorkerOptions {
  /** Endpoints served at the same time (each with one delivery in flight). Default 32. */
  concurrency?: number;
  /** How often due retries are looked for when nothing kicks the worker. Default 500 ms. */
  pollIntervalMs?: number;
  /**
   * How long an endpoint stays leased to this worker without a renewal. Default 6 s: a worker
   * renews its leases every third of it while it works, so a killed one holds its endpoints at most
   * this long and a restarted dispatcher resumes their deliveries within 10 s.
   */
  leaseMs?: number;
  /** Deliveries sent to one endpoint before its lease is given back (fairness). Default 20. */
  maxPerLease?: number;
  /** Called after every attempt (metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}

/**
 * Sends due deliveries. Each endpoint is leased in the database (FOR UPDATE SKIP LOCKED), so
 * across every replica one delivery per endpoint is in flight, oldest first; different
 * endpoints are served concurrently, so a slow or dead endpoint only holds its own slot.
 */
export class DeliveryWorker {
  readonly owner = `worker_${randomBase62(12)}`;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly maxPerLease: number;
  private timer: NodeJS.Timeout | undefined;
  private renewal: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private running = false;

  constructor(
    private readonly ctx: WebhookContext,
    private readonly options: DeliveryWorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 32;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.leaseMs = options.leaseMs ?? 6000;
    this.maxPerLease = options.maxPerLease ?? 20;
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
    const endpointIds = [...this.inFlight.keys()];
    if (endpointIds.length === 0) return;
    const until = new Date(this.ctx.clock.now().getTime() + this.leaseMs);
    this.ctx.endpoints
      .renewLeases(this.ctx.db, this.owner, endpointIds, until)
      .catch((err: unknown) => this.ctx.logger.warn({ err }, 'webhook worker: lease renewal failed'));
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
    await Promise.allSettled([...this.inFlight.values()]);
    if (this.renewal !== undefined) clearInterval(this.renewal);
  }

  private async tick(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const now = this.ctx.clock.now();
    let leased: string[];
    try {
      // One statement (FOR UPDATE SKIP LOCKED inside it): no transaction around it (ADR 0022).
      leased = await this.ctx.endpoints.leaseDue(
        this.ctx.db,
        this.owner,
        free,
        [...this.inFlight.keys()],
        now,
        new Date(now.getTime() + this.leaseMs),
      );
    } catch (err) {
      this.ctx.logger.error({ err }, 'webhook worker: leasing endpoints failed');
      return;
    }
    for (const endpointId of leased) {
      const run = this.drain(endpointId).finally(() => {
        this.inFlight.delete(endpointId);
        this.kick();
      });
      this.inFlight.set(endpointId, run);
    }
  }

  private async drain(endpointId: string): Promise<void> {
    try {
      for (let sent = 0; sent < this.maxPerLease && this.running;) {
        const outcomes = await deliverDue(this.ctx, endpointId, this.maxPerLease - sent);
        if (outcomes.length === 0) break;
        for (const outcome of outcomes) this.options.onAttempt?.(outcome);
        sent += outcomes.length;
        // A failure gives the slot back: the retry waits for its time, the others for the next lease.
        if (outcomes[outcomes.length - 1]?.outcome === 'failed') break;
      }
    } catch (err) {
      this.ctx.logger.error({ err, endpointId }, 'webhook worker: delivery failed unexpectedly');
    } finally {
      await this.ctx.endpoints
        .releaseLease(this.ctx.db, endpointId, this.owner)
        .catch((err: unknown) =>
          this.ctx.logger.error({ err, endpointId }, 'webhook worker: lease release failed'),
        );
    }
  }
}
