import path from 'node:path';
import { newId } from '@svc/ids';
import { appendToOutbox } from '@svc/messaging';
import {
  domainMigrations,
  startDomainService,
  type RunningDomainService,
  type StartOverrides,
} from '@svc/service-runtime';
import type { BillingConfig } from './config';
import { LedgerRepository } from './data-access/ledger.repository';
import { LicenseRepository } from './data-access/license.repository';
import { UsageReportRepository } from './data-access/usage-report.repository';
import { HttpLicensingClient, type LicensingPort } from './domain/licensing.client';
import type { BillingContext } from './domain/ports';
import { revenueRoutes } from './entry-points/http/revenue.routes';
import { usageRoutes } from './entry-points/http/usage.routes';
import { licenseProjectionSubscription } from './entry-points/messaging/license-projection.consumer';

export type { StartOverrides } from '@svc/service-runtime';
export type RunningBilling = RunningDomainService;

export interface BillingOverrides extends StartOverrides {
  /** Licensing asked on a license projection miss; default: licensing over HTTP at LICENSING_URL. */
  licensingClient?: LicensingPort;
}

/** Billing's migrations (after the outbox and inbox tables of @svc/messaging). */
export function billingMigrations() {
  return domainMigrations('billing', path.resolve(__dirname));
}

/** Wires billing's stores, license projection and routes into the common start sequence. */
export function startBilling(
  config: BillingConfig,
  overrides: BillingOverrides = {},
): Promise<RunningBilling> {
  const licensing =
    overrides.licensingClient ??
    new HttpLicensingClient({
      baseUrl: config.LICENSING_URL,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      environment: config.SVC_ENVIRONMENT,
      timeoutMs: config.LICENSING_TIMEOUT_MS,
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
      ...(overrides.logger === undefined ? {} : { logger: overrides.logger }),
    });
  return startDomainService({
    name: 'billing',
    config,
    overrides,
    migrations: billingMigrations(),
    wire: ({ db, clock, kickRelay }) => {
      const licenses = new LicenseRepository();
      const ctx: BillingContext = {
        db,
        licenses,
        licensing,
        reports: new UsageReportRepository(),
        ledger: new LedgerRepository(),
        clock,
        outbox: appendToOutbox,
        eventsCommitted: kickRelay,
        newId,
      };
      return {
        subscriptions: [licenseProjectionSubscription({ db, licenses, clock })],
        background: [{ name: 'licensing-client', start: () => undefined, stop: () => licensing.close() }],
        routes: (router) => {
          usageRoutes(router, ctx);
          revenueRoutes(router, ctx);
        },
      };
    },
  });
}
