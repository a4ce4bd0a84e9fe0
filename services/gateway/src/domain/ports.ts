import type { KeyScope } from '@svc/contracts/gateway';
import type { Queryable, TransactionOptions } from '@svc/ports';
import type { Environment } from './api-key';
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
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
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
