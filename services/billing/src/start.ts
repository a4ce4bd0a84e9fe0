import path from 'node:path';
import { newId } from '@svc/ids';
import type { Queryable } from '@svc/storage';
import { appendToOutbox } from '@svc/messaging';
import { INTERNAL_LICENSE_PATH, licenseSnapshotSchema } from '@svc/contracts/licensing';
import { HttpSnapshotSource } from '@svc/projection';
import {
  defineService,
  domainMigrations,
  periodicJob,
  type PeriodicJob,
  startDomainService,
  type RunningDomainService,
  type StartOverrides,
} from '@svc/service-runtime';
import { billingConfigSchema, type BillingConfig } from './config';
import { FeeChargeRepository } from './data-access/fee-charge.repository';
import { LedgerRepository } from './data-access/ledger.repository';
import { LicenseRepository } from './data-access/license.repository';
import { SandboxClockRepository } from '@svc/clock';
import { UsageReportRepository } from './data-access/usage-report.repository';
import { accrueDueFees, accrueLicenseFees } from './domain/accrue-license-fees.use-case';
import type { BillingContext, LicensingPort } from './domain/ports';
import { internalUsageRoutes } from './entry-points/http/internal-usage.routes';
import { revenueRoutes } from './entry-points/http/revenue.routes';
import { usageRoutes } from './entry-points/http/usage.routes';
import { clockAdvancedSubscription } from './entry-points/messaging/clock-advanced.consumer';
import { licenseProjectionSubscription } from './entry-points/messaging/license-projection.consumer';

export type { StartOverrides } from '@svc/service-runtime';

export interface RunningBilling extends RunningDomainService {
  /** One pass of the fee job now (tests move a ManualClock, then call this); the number of fee changes. */
  accrueFees(): Promise<number>;
}

export interface BillingOverrides extends StartOverrides {
  /** Licensing asked on a license projection miss; default: licensing over HTTP at LICENSING_URL. */
  licensingClient?: LicensingPort;
}

/** Billing's migrations (after the outbox and inbox tables of @svc/messaging). */
export function billingMigrations() {
  return domainMigrations('billing', path.resolve(__dirname));
}

/** Wires billing's stores, license projection and routes into the common start sequence. */
export async function startBilling(
  config: BillingConfig,
  overrides: BillingOverrides = {},
): Promise<RunningBilling> {
  const licensing =
    overrides.licensingClient ??
    new HttpSnapshotSource({
      service: 'billing',
      owner: 'licensing',
      route: INTERNAL_LICENSE_PATH,
      schema: licenseSnapshotSchema,
      baseUrl: config.LICENSING_URL,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      environment: config.SVC_ENVIRONMENT,
      timeoutMs: config.LICENSING_TIMEOUT_MS,
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
      ...(overrides.logger === undefined ? {} : { logger: overrides.logger }),
    });
  let feeJob: PeriodicJob<number> | undefined;
  const running = await startDomainService({
    name: 'billing',
    config,
    overrides,
    migrations: billingMigrations(),
    wire: ({ db, clock, logger, kickRelay }) => {
      const licenses = new LicenseRepository();
      const ctx: BillingContext = {
        db,
        licenses,
        licensing,
        reports: new UsageReportRepository(),
        ledger: new LedgerRepository(),
        fees: new FeeChargeRepository(),
        clocks: new SandboxClockRepository(),
        clock,
        outbox: appendToOutbox,
        eventsCommitted: kickRelay,
        newId,
      };
      const job = periodicJob({
        name: 'license-fees',
        intervalMs: config.FEE_ACCRUAL_INTERVAL_MS,
        logger,
        run: () => accrueDueFees(ctx),
      });
      feeJob = job;
      const afterApply = async (tx: Queryable, licenseId: string) => {
        const license = await licenses.find(tx, licenseId, { lock: true });
        if (license !== null) await accrueLicenseFees(ctx, tx, license);
      };
      const projection = licenseProjectionSubscription({ db, licenses, clock, afterApply });
      return {
        subscriptions: [
          // Fee notices the projection's transaction committed go out at once.
          {
            ...projection,
            handler: async (...delivery) => {
              await projection.handler(...delivery);
              kickRelay();
            },
          },
          clockAdvancedSubscription({ ...ctx, db }),
        ],
        background: [
          job,
          { name: 'licensing-client', start: () => undefined, stop: () => licensing.close() },
        ],
        routes: (router) => {
          usageRoutes(router, ctx);
          revenueRoutes(router, ctx);
          internalUsageRoutes(router, ctx);
        },
      };
    },
  });
  const job = feeJob;
  if (job === undefined) throw new Error('unreachable: the fee job is made while wiring');
  return { ...running, accrueFees: () => job.runOnce() };
}

/** Billing's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const billingService = defineService({
  name: 'billing',
  urlVariable: 'BILLING_URL',
  configSchema: billingConfigSchema,
  start: startBilling,
  embedded: (deps) => ({ env: { LICENSING_URL: deps.serviceUrls?.LICENSING_URL } }),
});
