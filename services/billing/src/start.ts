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
import type { BillingContext } from './domain/ports';
import { revenueRoutes } from './entry-points/http/revenue.routes';
import { usageRoutes } from './entry-points/http/usage.routes';
import { licenseProjectionSubscription } from './entry-points/messaging/license-projection.consumer';

export type { StartOverrides } from '@svc/service-runtime';
export type RunningBilling = RunningDomainService;

/** Billing's migrations (after the outbox and inbox tables of @svc/messaging). */
export function billingMigrations() {
  return domainMigrations('billing', path.resolve(__dirname));
}

/** Wires billing's stores, license projection and routes into the common start sequence. */
export function startBilling(config: BillingConfig, overrides: StartOverrides = {}): Promise<RunningBilling> {
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
        reports: new UsageReportRepository(),
        ledger: new LedgerRepository(),
        clock,
        outbox: appendToOutbox,
        eventsCommitted: kickRelay,
        newId,
      };
      return {
        subscriptions: [licenseProjectionSubscription({ db, licenses, clock })],
        routes: (router) => {
          usageRoutes(router, ctx);
          revenueRoutes(router, ctx);
        },
      };
    },
  });
}
