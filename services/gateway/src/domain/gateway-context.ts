import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { Environment } from './api-key';
import type { AccountMailStore, MailOutboxStore } from './account-mail';
import type {
  ApiKeyStore,
  IdempotencyStore,
  KeyAuthenticationStore,
  PlatformStore,
  TransactionRunner,
} from './ports';
import type {
  AccountSecurityStore,
  AccountStore,
  PasswordHasher,
  RateCounterStore,
  SessionStore,
  UploadFiles,
  UploadStore,
} from './account-ports';
import type { UploadBudget } from './upload-budget';
import type { RouteTable } from './route-table';
import type { UpstreamClient } from './upstream.client';
import type { SessionBudget } from './authenticate-session.use-case';
import type { RequestLogBuffer, RequestLogStore } from './request-log';
import type { MemberStore } from './members';

/** Everything the gateway's entry points hand to its use cases. */
export interface GatewayContext {
  clock: Clock;
  environment: Environment;
  adminToken: string | undefined;
  /** The gateway's database: platforms and keys. */
  db: TransactionRunner;
  /** The per-request key lookup, rate counting and Idempotency-Key bindings (ADR 0006). */
  hotPathDb: Queryable;
  platforms: PlatformStore;
  keys: ApiKeyStore;
  store: KeyAuthenticationStore;
  /** This replica forgets what it knew of keys (after its own change to one committed; ADR 0025). */
  keysChanged: () => void;
  /** Units of a bucket's window this replica holds leased and unspent (ADR 0025; 0 when none). */
  heldBudget: (bucket: string, windowStart: Date) => number;
  idempotency: IdempotencyStore;
  routes: RouteTable;
  upstreams: UpstreamClient;
  accounts: AccountStore;
  sessions: SessionStore;
  counters: RateCounterStore;
  passwords: PasswordHasher;
  /** Pictures uploaded from the dashboard (ADR 0024). */
  uploads: UploadStore;
  /** Where upload bytes are kept when not in the database (UPLOAD_DIR); undefined: the database. */
  uploadFiles?: UploadFiles | undefined;
  /** Uploads read and stored at once, by this replica and per account (#30). */
  uploadBudget: UploadBudget;
  /** An account's live uploads at most: how many, and their bytes (UPLOAD_QUOTA_COUNT, UPLOAD_QUOTA_MB). */
  uploadQuota: { count: number; bytes: number };
  /** Runs one pass of the purge of unreferenced uploads now (set when the purge runs); how many went. */
  purgeUploads?: () => Promise<number>;
  /** PUBLIC_BASE_URL: where an uploaded picture's URL points; undefined: the request's own origin. */
  publicBaseUrl?: string | undefined;
  /** Where the dashboard's built assets are (served under /dashboard), or undefined when it is not served. */
  dashboardDir: string | undefined;
  /** The generated OpenAPI document, served as is. */
  openapi: Record<string, unknown>;
  /** MAX_ACTIVE_API_KEYS: active keys a platform may hold per environment (#30). */
  maxActiveApiKeys?: number | undefined;
  /** DASHBOARD_CALLS_PER_MINUTE / _PER_DAY: a dashboard session's own budget of public calls (#30). */
  sessionBudget?: SessionBudget | undefined;
  /** Pending sign-ups and password-reset links (#30). */
  accountMail: AccountMailStore;
  /** Account mail, written with the change it tells about; the relay sends it (#30). */
  mailOutbox: MailOutboxStore;
  /** SIGN_UPS_PER_HOUR: sign-ups (and, apart, reset requests) per client and per address an hour. */
  signUpsPerHour?: number | undefined;
  /** Wakes the mail relay after a mail was queued (unset: no relay runs; mail waits in the outbox). */
  mailQueued?: (() => void) | undefined;
  /** Members of tenants and their invitations (#32, ADR 0034). */
  members: MemberStore;
  /** Second factors, recovery codes, known devices, password changes (#30). */
  security: AccountSecurityStore;
  /** Each key's recent requests (#32): stored, and this replica's buffer of those not yet written. */
  requestLog: RequestLogStore;
  requestLogBuffer: RequestLogBuffer;
  /** ADMIN_TOTP_SECRET: the operator's TOTP secret preset by configuration; undefined: enrolled at first sign-in. */
  adminTotpSecret?: string | undefined;
}
