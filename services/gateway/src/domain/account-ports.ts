import type { Queryable } from '@svc/ports';
import type { Account } from './account';
import type { Platform } from './ports';

// The ports of the dashboard's accounts, sessions, uploads and second factors (the rest of the
// gateway's ports are in ports.ts, which re-exports these).

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
