import path from 'node:path';
import { newId } from '@svc/ids';
import { appendToOutbox, currentEntityVersion } from '@svc/messaging';
import { boxSnapshotSchema, INTERNAL_BOX_PATH } from '@svc/contracts/registry';
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
import { licensingConfigSchema, type LicensingConfig } from './config';
import { BoxProjectionRepository } from './data-access/box-projection.repository';
import { LicenseRequestRepository } from './data-access/license-request.repository';
import { LicenseRepository } from './data-access/license.repository';
import { SandboxClockRepository } from '@svc/clock';
import { expireDueLicenses, type ExpiryRun } from './domain/expire-due-licenses.use-case';
import { HttpBillingClient, type BillingPort } from './domain/billing.client';
import type { LicensingContext, RegistryPort } from './domain/ports';
import { CredentialRepository } from './data-access/credential.repository';
import { StatusListPublisher } from './domain/status-list';
import type { KeyRing } from './domain/signing-keys';
import { assertSigningKeyConfig, loadKeyRing } from './signing-key-config';
import { credentialRoutes } from './entry-points/http/credentials.routes';
import { licenseReviewRoutes } from './entry-points/http/license-review.routes';
import { licenseRoutes } from './entry-points/http/licenses.routes';
import { internalSnapshotRoutes } from './entry-points/http/internal-snapshots.routes';
import { secondFamilyRoutes } from './entry-points/http/second-family.routes';
import { boxProjectionSubscription } from './entry-points/messaging/box-projection.consumer';
import { clockAdvancedSubscription } from './entry-points/messaging/clock-advanced.consumer';
import { transparencySubscription } from './entry-points/messaging/transparency.consumer';
import { transparencyRoutes } from './entry-points/http/transparency.routes';
import { TransparencyLog, transparencyLogMigrations } from '@svc/transparency-log';

export type { StartOverrides } from '@svc/service-runtime';

export interface LicensingOverrides extends StartOverrides {
  /** The registry asked on a box projection miss; default: the registry over HTTP at REGISTRY_URL. */
  registryClient?: RegistryPort;
  /** Billing asked for a license's usage; default: billing over HTTP at `billingUrl` or BILLING_URL. */
  billingClient?: BillingPort;
  /** Where billing answers when known only after licensing starts (the embedded default). */
  billingUrl?: () => string | undefined;
}

export interface RunningLicensing extends RunningDomainService {
  /** One pass of the expiry job now (tests move a ManualClock, then call this). */
  expireDueLicenses(): Promise<ExpiryRun>;
}

/** Licensing's migrations (after the outbox and inbox tables of @svc/messaging), and the transparency log's (ADR 0030). */
export function licensingMigrations() {
  return [...domainMigrations('licensing', path.resolve(__dirname)), transparencyLogMigrations];
}

/** Wires licensing's stores, consumers, expiry job and routes into the common start sequence. */
export async function startLicensing(
  config: LicensingConfig,
  overrides: LicensingOverrides = {},
): Promise<RunningLicensing> {
  // A production deployment without a signing key stops here, before it opens anything.
  await assertSigningKeyConfig(config);
  let expiry: PeriodicJob<ExpiryRun> | undefined;
  const registry =
    overrides.registryClient ??
    new HttpSnapshotSource({
      service: 'licensing',
      owner: 'registry',
      route: INTERNAL_BOX_PATH,
      schema: boxSnapshotSchema,
      baseUrl: config.REGISTRY_URL,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      environment: config.SVC_ENVIRONMENT,
      timeoutMs: config.REGISTRY_TIMEOUT_MS,
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
      ...(overrides.logger === undefined ? {} : { logger: overrides.logger }),
    });
  const billing =
    overrides.billingClient ??
    new HttpBillingClient({
      baseUrl: overrides.billingUrl ?? config.BILLING_URL,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      environment: config.SVC_ENVIRONMENT,
      timeoutMs: config.BILLING_TIMEOUT_MS,
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
      ...(overrides.logger === undefined ? {} : { logger: overrides.logger }),
    });
  const running = await startDomainService({
    name: 'licensing',
    config,
    overrides,
    migrations: licensingMigrations(),
    wire: async ({ db, clock, logger, kickRelay }) => {
      const keys: KeyRing = await loadKeyRing(config, db, clock, logger);
      const boxes = new BoxProjectionRepository();
      const ctx: LicensingContext & { db: typeof db } = {
        db,
        boxes,
        registry,
        requests: new LicenseRequestRepository(),
        licenses: new LicenseRepository(),
        billing,
        clocks: new SandboxClockRepository(),
        clock,
        outbox: appendToOutbox,
        eventsCommitted: kickRelay,
        entityVersion: currentEntityVersion,
        newId,
        credentials: new CredentialRepository(),
        signer: { issuer: config.CREDENTIAL_ISSUER.replace(/\/+$/, ''), key: () => keys.current },
      };
      const statusLists = new StatusListPublisher(ctx, Math.min(config.STATUS_LIST_CACHE_MS, 5000));
      // The transparency log of decisions, its tree heads signed with the credentials' key (ADR 0030).
      const transparency = { db, log: new TransparencyLog(), clock, key: () => keys.current };
      const job = periodicJob({
        name: 'license-expiry',
        intervalMs: config.LICENSE_EXPIRY_INTERVAL_MS,
        logger,
        run: () => expireDueLicenses(ctx),
      });
      expiry = job;
      return {
        subscriptions: [
          boxProjectionSubscription({ db, boxes, clock }),
          clockAdvancedSubscription(ctx),
          transparencySubscription({
            ...transparency,
            licenses: ctx.licenses,
            outbox: appendToOutbox,
            eventsCommitted: kickRelay,
          }),
        ],
        background: [
          job,
          { name: 'registry-client', start: () => undefined, stop: () => registry.close() },
          { name: 'billing-client', start: () => undefined, stop: () => billing.close() },
        ],
        routes: (router) => {
          licenseRoutes(router, ctx);
          licenseReviewRoutes(router, ctx);
          secondFamilyRoutes(router, ctx);
          internalSnapshotRoutes(router, ctx);
          credentialRoutes(router, ctx, { statusLists, keys });
          transparencyRoutes(router, transparency);
        },
      };
    },
  });
  const job = expiry;
  if (job === undefined) throw new Error('unreachable: the expiry job is made while wiring');
  return { ...running, expireDueLicenses: () => job.runOnce() };
}

/** Licensing's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const licensingService = defineService({
  name: 'licensing',
  urlVariable: 'LICENSING_URL',
  configSchema: licensingConfigSchema,
  start: startLicensing,
  embedded: (deps) => ({
    env: { REGISTRY_URL: deps.serviceUrls?.REGISTRY_URL },
    // Billing starts after licensing: its URL is read when a license's detail first asks.
    overrides: { billingUrl: () => deps.serviceUrls?.BILLING_URL },
  }),
});
