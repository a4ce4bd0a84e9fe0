import { allOperations } from '@svc/contracts/catalogue';
import type { ServiceName } from '@svc/contracts/common';
import { publicOpenApiDocument } from '@svc/contracts/public-document';
import type { Clock } from '@svc/clock';
import type { Database } from '@svc/storage';
import type { Logger } from '@svc/logger';
import express, { type Router } from 'express';
import type { Registry } from 'prom-client';
import type { ServiceSelf } from '@svc/service-runtime';
import type { CreateServiceOptions } from '@svc/service-kit';
import { Argon2PasswordHasher } from './adapters/argon2-password.hasher';
import { FileUploadFiles } from './adapters/file-upload-files';
import {
  AccountRepository,
  RateCounterRepository,
  SessionRepository,
} from './data-access/account.repository';
import { AccountSecurityRepository } from './data-access/account-security.repository';
import { AccountMailRepository, MailOutboxRepository } from './data-access/account-mail.repository';
import { ApiKeyRepository } from './data-access/api-key.repository';
import { IdempotencyRepository } from './data-access/idempotency.repository';
import { KeyAuthenticationRepository } from './data-access/key-authentication.repository';
import { PlatformRepository } from './data-access/platform.repository';
import { UploadRepository } from './data-access/upload.repository';
import type { Environment } from './domain/api-key';
import { limitsFor } from './domain/plans';
import type { GatewayContext } from './domain/gateway-context';
import { isPublicPath } from './domain/handle-public-request.use-case';
import { LeasedKeyAuthentication } from './domain/leased-key-authentication';
import { RouteTable, routesFrom, type Route } from './domain/route-table';
import { UploadBudget } from './domain/upload-budget';
import { UpstreamClient } from './domain/upstream.client';
import { accountMailRoutes } from './entry-points/http/account-mail.routes';
import { memberRoutes } from './entry-points/http/members.routes';
import { MemberRepository } from './data-access/member.repository';
import { adminRoutes } from './entry-points/http/admin.routes';
import { accountRoutes } from './entry-points/http/account.routes';
import { batchRoutes } from './entry-points/http/batch.routes';
import { requestLogRoutes } from './entry-points/http/request-log.routes';
import { RequestLogRepository } from './data-access/request-log.repository';
import { RequestLogBuffer } from './domain/request-log';
import { dashboardRoutes } from './entry-points/http/dashboard.routes';
import { publicRoutes, publicRoutesBeforeBody } from './entry-points/http/public.routes';
import { publicFastPath } from './entry-points/http/public-fast-path';
import { sampleRoutes } from './entry-points/http/samples.routes';
import { securityHeaderRoutes } from './entry-points/http/security-headers';
import { uploadRoutes } from './entry-points/http/upload.routes';
import type { SessionBudget } from './domain/authenticate-session.use-case';

export interface GatewayOptions {
  db: Database;
  /**
   * The pool of the per-request key lookup and rate counting; default `db`. In cluster mode its
   * sessions commit without waiting for the disk (ADR 0006): a database crash may forget the last
   * fraction of a second of counts, which only ever lets a few requests more through.
   */
  hotPathDb?: Database;
  clock: Clock;
  logger: Logger;
  /** What `/metrics` serves: the upstream clients record into it. */
  registry: Registry;
  environment: Environment;
  adminToken: string | undefined;
  internalJwtSecret: string;
  serviceUrls: Partial<Record<ServiceName, string>>;
  /** Default: every declared operation owned by another service. */
  routes?: Route[];
  /** The budget of routes that declare none. */
  upstreamTimeoutMs?: number;
  /** The dashboard's built assets; undefined: /dashboard answers that it is not built. */
  dashboardDir?: string;
  /**
   * The gateway's public address (PUBLIC_BASE_URL), which an uploaded picture's URL names; default:
   * the origin the request was sent to.
   */
  publicBaseUrl?: string;
  /** MAX_ACTIVE_API_KEYS: active keys a platform may hold per environment; default 20. */
  maxActiveApiKeys?: number;
  /** A dashboard session's own budget of public calls (docs/spec/contracts.md §17); default DEFAULT_SESSION_BUDGET. */
  sessionBudget?: SessionBudget;
  /** SIGN_UPS_PER_HOUR: sign-ups (and, apart, reset requests) per client and per address an hour; default 5. */
  signUpsPerHour?: number;
  /** ADMIN_TOTP_SECRET: presets the operator's TOTP secret (base32); default: enrolled at the first sign-in. */
  adminTotpSecret?: string;
  /** Dashboard uploads (#30): where the bytes go (a directory; default the database) and the budgets. */
  uploads?: {
    dir?: string | undefined;
    quotaCount?: number;
    quotaBytes?: number;
    /** Uploads this replica reads and stores at once (default 4), one account's share (default 1). */
    inFlight?: number;
    perAccount?: number;
  };
}

export interface Gateway {
  context: GatewayContext;
  /** The key cache and the budget leases of this replica (ADR 0025). */
  keyAuthentication: LeasedKeyAuthentication;
  /** The admin API and the public API (the app around them is startHttpService's, which tells its readiness). */
  routes(router: Router, self: ServiceSelf): void;
  /** What runs before the body is read: a public request's key is counted there. */
  beforeBody(router: Router): void;
  /** What every answer passes through first, health included: the security headers (#30). */
  everyAnswer(router: Router): void;
  /** The public API's requests with a key, served without express (ADR 0041). */
  fastPath: NonNullable<CreateServiceOptions['fastPath']>;
  close(): Promise<void>;
}

/** Assembles the gateway's context and routes from its stores and its route table. */
export function buildGateway(options: GatewayOptions): Gateway {
  const { db, registry } = options;
  const upstreams = new UpstreamClient({
    serviceUrls: options.serviceUrls,
    internalJwtSecret: options.internalJwtSecret,
    logger: options.logger,
    registry,
    ...(options.upstreamTimeoutMs === undefined ? {} : { timeoutMs: options.upstreamTimeoutMs }),
  });
  const keyAuthentication = new LeasedKeyAuthentication(new KeyAuthenticationRepository());
  const requestLog = new RequestLogRepository();
  const context: GatewayContext = {
    clock: options.clock,
    environment: options.environment,
    adminToken: options.adminToken,
    db,
    // Async commit is enough for a binding too: losing one only lets a key be reused for another route.
    hotPathDb: options.hotPathDb ?? db,
    platforms: new PlatformRepository(limitsFor),
    keys: new ApiKeyRepository(),
    store: keyAuthentication,
    keysChanged: () => keyAuthentication.keys.invalidateAll(),
    heldBudget: (bucket, windowStart) => keyAuthentication.leases.heldOf(bucket, windowStart),
    idempotency: new IdempotencyRepository(),
    accounts: new AccountRepository(),
    sessions: new SessionRepository(limitsFor),
    counters: new RateCounterRepository(),
    passwords: new Argon2PasswordHasher(),
    dashboardDir: options.dashboardDir,
    uploads: new UploadRepository(),
    uploadFiles: options.uploads?.dir === undefined ? undefined : new FileUploadFiles(options.uploads.dir),
    uploadBudget: new UploadBudget({
      inFlight: options.uploads?.inFlight ?? 4,
      perAccount: options.uploads?.perAccount ?? 1,
      now: () => options.clock.now(),
    }),
    uploadQuota: {
      count: options.uploads?.quotaCount ?? 100,
      bytes: options.uploads?.quotaBytes ?? 50 * 1024 * 1024,
    },
    publicBaseUrl: options.publicBaseUrl?.replace(/\/+$/, ''),
    routes: new RouteTable(options.routes ?? routesFrom(allOperations)),
    upstreams,
    openapi: publicOpenApiDocument(),
    maxActiveApiKeys: options.maxActiveApiKeys,
    sessionBudget: options.sessionBudget,
    accountMail: new AccountMailRepository(),
    members: new MemberRepository(),
    mailOutbox: new MailOutboxRepository(),
    signUpsPerHour: options.signUpsPerHour,
    security: new AccountSecurityRepository(),
    requestLog,
    requestLogBuffer: new RequestLogBuffer(requestLog),
    adminTotpSecret: options.adminTotpSecret,
  };
  return {
    context,
    keyAuthentication,
    routes: (router, self) => {
      // The gateway's own routes (about 25 of them) are not tried for a public request: it goes
      // straight to the public handler, which matches it against the route table once.
      const own = express.Router();
      accountRoutes(own, context);
      // Before the dashboard's routes: they end with a 404 for every other /dashboard/api path.
      accountMailRoutes(own, context);
      memberRoutes(own, context);
      batchRoutes(own, context);
      requestLogRoutes(own, context);
      dashboardRoutes(own, context);
      adminRoutes(own, context, () => self.readiness());
      sampleRoutes(own, context);
      router.use((req, res, next) => {
        if (isPublicPath(req.path)) next();
        else own(req, res, next);
      });
      publicRoutes(router, context);
    },
    // First: every answer carries them, /healthz and /readyz and those refused before the body is read included.
    everyAnswer: (router) => securityHeaderRoutes(router),
    beforeBody: (router) => {
      // The upload's body is a picture, not JSON: it is read before the JSON body policy.
      uploadRoutes(router, context);
      publicRoutesBeforeBody(router, context);
    },
    fastPath: publicFastPath(context),
    close: () => upstreams.close(),
  };
}
