import type { KeyScope } from '@svc/contracts/gateway';
import type { Queryable } from '@svc/ports';
import type { Environment } from './api-key';
import type { Account } from './account';
import type { Limits, Plan } from './plans';

export interface Platform {
  id: string;
  name: string;
  plan: Plan;
  domain: string | null;
  limits: Limits;
  createdAt: Date;
}

/** `creator`: the tenant of a creator's dashboard account (ADR 0024); `platform`: any other. */
export type PlatformKind = 'platform' | 'creator';

export interface ApiKeyRecord {
  id: string;
  platformId: string;
  name: string | null;
  last4: string | null;
  lastUsedAt: Date | null;
  scope: KeyScope;
  environment: Environment;
  budgetId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  replacedBy: string | null;
}

export interface NewApiKey {
  id: string;
  platformId: string;
  name: string | null;
  last4: string;
  scope: KeyScope;
  environment: Environment;
  keyHash: string;
  budgetId: string;
  createdAt: Date;
}

/** A key found by its hash, with its platform, and the counts after this request was counted. */
export interface AuthenticatedKey extends KnownKey {
  /** Null when the key was not counted (revoked, expired or of the other environment). */
  minuteCount: number | null;
  dayCount: number | null;
  extraCount: number | null;
}

export interface CountWindows {
  minuteStart: Date;
  dayStart: Date;
  extra?: { bucket: string; windowStart: Date };
}

/** Runs work in one transaction. */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export interface PlatformStore {
  insert(tx: Queryable, platform: Platform): Promise<void>;
  find(q: Queryable, id: string): Promise<Platform | null>;
  /** Newest first; `kind` creator: tenants of creator accounts, platform: every other. */
  list(
    q: Queryable,
    filter: {
      limit: number;
      offset: number;
      kind?: PlatformKind | undefined;
      /** Only tenants whose name contains this, any case. */
      q?: string | undefined;
      /** Only these platforms. */
      ids?: readonly string[] | undefined;
    },
  ): Promise<{ items: { platform: Platform; kind: PlatformKind }[]; total: number }>;
  /** Sets the plan (and the agreed limits, null unless enterprise); false when there is no such platform. */
  changePlan(tx: Queryable, id: string, plan: Plan, limits: Limits | null): Promise<boolean>;
}

export interface ApiKeyStore {
  insert(tx: Queryable, key: NewApiKey): Promise<void>;
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<ApiKeyRecord | null>;
  listForPlatform(q: Queryable, platformId: string): Promise<ApiKeyRecord[]>;
  /** The key is rotated: it works until `expiresAt` and points at its successor. */
  markRotated(tx: Queryable, id: string, expiresAt: Date, successorId: string): Promise<void>;
  /** The key is revoked at `at`; it points at its successor (if one was issued) unless it already did. */
  markRevoked(tx: Queryable, id: string, at: Date, successorId: string | null): Promise<void>;
  /** Serialises key issuing for one platform until the transaction ends: a quota count stays true until the insert. */
  lockIssuing(tx: Queryable, platformId: string): Promise<void>;
  /** The platform's keys of one environment that work now and were not replaced (rotated or revoked). */
  countActive(q: Queryable, platformId: string, environment: Environment, now: Date): Promise<number>;
}

/** A key found by its hash, with its platform: what each replica keeps in memory (ADR 0025). */
export interface KnownKey {
  keyId: string;
  keyHash: string;
  platformId: string;
  scope: KeyScope;
  environment: Environment;
  budgetId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  plan: Plan;
  platformName: string;
  domain: string | null;
  storedLimits: Partial<Limits> | null;
}

/** A slice of a bucket's budget asked for: at most `want`, never past `limit` in the window. */
export interface BudgetRequest {
  bucket: string;
  windowStart: Date;
  want: number;
  limit: number;
}

/** What was handed out: `granted` (0 when the window's budget is spent) and the bucket's total after it. */
export interface BudgetGrant {
  bucket: string;
  granted: number;
  count: number;
}

/** The shared budgets in the database (ADR 0025): keys by hash, and leases of budget. */
export interface KeyBudgetStore {
  findKey(q: Queryable, keyHash: string): Promise<KnownKey | null>;
  /** Takes a slice of each bucket in one round trip; a bucket never hands out more than its limit. */
  acquireBudget(q: Queryable, requests: BudgetRequest[]): Promise<BudgetGrant[]>;
  /** Gives unspent units back (a replica idle or stopping), so that other replicas may spend them. */
  returnBudget(q: Queryable, units: { bucket: string; windowStart: Date; units: number }[]): Promise<void>;
  /** Drops counters of windows that ended before `before`. */
  purgeCounters(q: Queryable, before: Date): Promise<number>;
  /** Moves each key's last use forward to `at` (never back: another replica may have seen a later one). */
  recordKeyUses(q: Queryable, uses: { keyId: string; at: Date }[]): Promise<void>;
}

export interface KeyAuthenticationStore {
  /** Finds a key by hash and, when usable at `now` in `environment`, counts the request in its buckets. */
  authenticateAndCount(
    q: Queryable,
    keyHash: string,
    now: Date,
    environment: Environment,
    windows: CountWindows,
  ): Promise<AuthenticatedKey | null>;
  /** Drops counters of windows that ended before `before`. */
  purgeCounters(q: Queryable, before: Date): Promise<number>;
}

/** `new`: the key was free; `same`: used before with this request; `different`: with another one. */
export type IdempotencyBinding = 'new' | 'same' | 'different';

/**
 * Binds a platform's Idempotency-Key to the request it was first used with. The answers
 * themselves are kept by the owning service with its write (ADR 0011).
 */
export interface IdempotencyStore {
  /** Binds the key to this request unless it is bound (and not expired); says how it stands. */
  bind(
    q: Queryable,
    platformId: string,
    key: string,
    fingerprint: string,
    now: Date,
    ttlMs: number,
  ): Promise<IdempotencyBinding>;
  /** Unbinds a key whose request surely did not run (the service was unreachable), so it may be reused. */
  release(q: Queryable, platformId: string, key: string, fingerprint: string): Promise<void>;
  purge(q: Queryable, before: Date): Promise<number>;
}

/** A signed-in session as the gateway finds it by its token. */
export interface ActiveSession {
  id: string;
  csrfToken: string;
  expiresAt: Date;
  account: Account;
  /** The account's tenant; null for the operator. */
  platform: Platform | null;
  /** An operator session: the fingerprint of the ADMIN_TOKEN it was signed in with (null otherwise). */
  adminTokenFingerprint?: string | null;
}

export interface NewSession {
  id: string;
  tokenHash: string;
  accountId: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
  /** An operator session: the fingerprint of the ADMIN_TOKEN it was signed in with. */
  adminTokenFingerprint?: string | null;
}

export interface AccountStore {
  /** Inserts the account; false when its e-mail is taken. */
  insert(tx: Queryable, account: Account, passwordHash: string): Promise<boolean>;
  /** The account and its password hash, by e-mail (lower case). */
  findByEmail(q: Queryable, email: string): Promise<{ account: Account; passwordHash: string } | null>;
  find(q: Queryable, id: string): Promise<Account | null>;
  /** The accounts acting as this tenant (the people of a creator or platform), oldest first. */
  listByPlatform(q: Queryable, platformId: string): Promise<Account[]>;
}

export interface SessionStore {
  insert(tx: Queryable, session: NewSession): Promise<void>;
  /** The session of this token hash, when it has not ended nor expired at `now`. */
  findActive(q: Queryable, tokenHash: string, now: Date): Promise<ActiveSession | null>;
  end(q: Queryable, id: string, at: Date): Promise<void>;
  /** Ends every running session of the account but `exceptId` (password change, sign out everywhere); how many. */
  endAllOf(q: Queryable, accountId: string, at: Date, exceptId?: string): Promise<number>;
  /** Drops sessions that expired before `before`. */
  purge(q: Queryable, before: Date): Promise<number>;
}

/** Fixed-window counters (the rate-limit table) for what is not an API key: sessions, sign-ins. */
export interface RateCounterStore {
  /** Adds one to each bucket's window and returns the counts after it. */
  increment(q: Queryable, buckets: { bucket: string; windowStart: Date }[]): Promise<Map<string, number>>;
  read(q: Queryable, bucket: string, windowStart: Date): Promise<number>;
  /** Takes one back from each bucket's window (a reserved sign-in attempt that turned out right). */
  giveBack(q: Queryable, buckets: { bucket: string; windowStart: Date }[]): Promise<void>;
}

/** A memory-hard password hash (argon2id). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password and for a stored value that is no hash. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** A picture uploaded from the dashboard, served at /dashboard/uploads/<id> (ADR 0024). */
export interface Upload {
  id: string;
  platformId: string;
  accountId: string;
  contentType: string;
  sizeBytes: number;
  /** null: the bytes are in the file store (UploadFiles). */
  bytes: Buffer | null;
  createdAt: Date;
}

export interface UploadStore {
  insert(q: Queryable, upload: Upload): Promise<void>;
  find(q: Queryable, id: string): Promise<Pick<Upload, 'contentType' | 'bytes'> | null>;
  /** Until the transaction ends, the account's uploads are counted and added by one caller at a time. */
  lockAccount(tx: Queryable, accountId: string): Promise<void>;
  /** The account's live uploads: how many and their bytes. */
  usage(q: Queryable, accountId: string): Promise<{ count: number; bytes: number }>;
  /** Uploads created before `cutoff`: those the purge asked about least lately first, then the oldest. */
  createdBefore(
    q: Queryable,
    cutoff: Date,
    limit: number,
  ): Promise<{ id: string; platformId: string; inFiles: boolean }[]>;
  delete(q: Queryable, ids: string[]): Promise<void>;
  /** The purge found these named by a claim now. */
  markInUse(q: Queryable, ids: string[], at: Date): Promise<void>;
}

/** Where upload bytes live when not in the database (the embedded default: files under its data directory). */
export interface UploadFiles {
  write(id: string, bytes: Buffer): Promise<void>;
  /** null: no such file. */
  read(id: string): Promise<Buffer | null>;
  /** Removes the file; a missing one is no error. */
  remove(id: string): Promise<void>;
}

/** An account's second factor (TOTP, RFC 6238) as stored. */
export interface SecondFactorState {
  /** The confirmed secret (base32): a code is required at sign-in. */
  totpSecret: string | null;
  /** A secret shown at enrolment and not yet confirmed by a code. */
  totpPendingSecret: string | null;
  /** The last TOTP time step accepted (a code is accepted once). */
  totpLastStep: number | null;
  recoveryCodesLeft: number;
}

/** Second factors, recovery codes, known devices and password changes (#30). */
export interface AccountSecurityStore {
  find(q: Queryable, accountId: string): Promise<SecondFactorState>;
  setPendingTotp(q: Queryable, accountId: string, secret: string | null): Promise<void>;
  /** Makes `secret` the confirmed one, replaces the recovery codes (their hashes) and records the step used. */
  confirmTotp(
    q: Queryable,
    accountId: string,
    secret: string,
    step: number,
    recoveryCodeHashes: string[],
  ): Promise<void>;
  /** Drops the second factor and the recovery codes. */
  disableTotp(q: Queryable, accountId: string): Promise<void>;
  /** Records `step` as used unless it (or a later one) already was; false then (a replayed code). */
  acceptTotpStep(q: Queryable, accountId: string, step: number): Promise<boolean>;
  /** Marks an unused recovery code used; false when there is none of this hash. */
  useRecoveryCode(q: Queryable, accountId: string, codeHash: string, at: Date): Promise<boolean>;
  setPasswordHash(q: Queryable, accountId: string, passwordHash: string): Promise<void>;
  rememberDevice(q: Queryable, tokenHash: string, accountId: string, at: Date): Promise<void>;
  isKnownDevice(q: Queryable, tokenHash: string, accountId: string): Promise<boolean>;
}
