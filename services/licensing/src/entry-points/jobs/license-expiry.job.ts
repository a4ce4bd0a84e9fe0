import type { Logger } from '@svc/logger';
import { expireDueLicenses, type ExpiryRun } from '../../domain/expire-due-licenses.use-case';
import type { LicensingContext } from '../../domain/ports';

/** Runs the expiry use case every `intervalMs` (one pass at a time); `runOnce` for tests. */
export class LicenseExpiryJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ExpiryRun> | undefined;

  constructor(
    private readonly ctx: LicensingContext,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.runOnce().catch((err: unknown) => this.logger.error({ err }, 'license expiry pass failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** One pass now (or joins the pass in progress). */
  runOnce(): Promise<ExpiryRun> {
    this.running ??= expireDueLicenses(this.ctx).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
