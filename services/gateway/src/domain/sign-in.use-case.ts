import type { Clock } from '@svc/clock';
import { AppError, errors } from '@svc/errors';
import {
  hashSessionToken,
  LOGIN_FAILURES_ACCOUNT_CEILING,
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_CLIENT,
  LOGIN_WINDOW_SECONDS,
  newDeviceToken,
} from './account';
import { windowOf } from './rate-limit';
import { hashRecoveryCode, totpStepOf } from './second-factor';
import { startSession, type StartedSession } from './start-session';
import type { TransactionRunner } from './ports';
import type {
  AccountSecurityStore,
  AccountStore,
  PasswordHasher,
  RateCounterStore,
  SessionStore,
} from './account-ports';

export interface SignInDeps {
  db: TransactionRunner;
  accounts: AccountStore;
  sessions: SessionStore;
  counters: RateCounterStore;
  passwords: PasswordHasher;
  security: AccountSecurityStore;
  clock: Clock;
}

/** Who is trying: the client's address (behind TRUST_PROXY, the real one) and its device cookie. */
export interface SignInClient {
  client: string;
  /** The svc_device cookie, when the browser has one. */
  deviceToken?: string | undefined;
}

/** A session just started, and the device cookie to set when this browser was not known yet. */
export interface SignedIn extends StartedSession {
  newDeviceToken?: string;
}

export function throttled(limit: number, resetAt: Date, now: Date): AppError {
  const minutes = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 60_000));
  return errors.rateLimited(
    `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    limit,
    resetAt,
    now,
  );
}

/** A reserved attempt: kept when it fails, given back when it turns out right. */
export interface Attempt {
  giveBack(): Promise<void>;
}

/**
 * Reserves one attempt in each of the subject's buckets before anything is checked, in one
 * statement (INSERT … ON CONFLICT DO UPDATE … RETURNING): parallel guesses each take their own
 * count, and one past a limit is refused (and given back: it checked nothing). The buckets
 * (README, "Sign-in throttling"): the subject from this address, or from this known device; this
 * address across subjects; the subject from everywhere (a known device is exempt from the last two,
 * so that an attacker elsewhere, or behind the same address, does not lock the owner out).
 */
export async function reserveAttempt(
  deps: Pick<SignInDeps, 'db' | 'counters' | 'clock'>,
  subject: string,
  who: { client: string; knownDevice?: string | undefined },
): Promise<Attempt> {
  const now = deps.clock.now();
  const window = windowOf(now, LOGIN_WINDOW_SECONDS);
  const limited =
    who.knownDevice === undefined
      ? [
          { bucket: `login-pair:${subject}|${who.client}`, limit: LOGIN_FAILURES_PER_ACCOUNT },
          { bucket: `login-client:${who.client}`, limit: LOGIN_FAILURES_PER_CLIENT },
          { bucket: `login:${subject}`, limit: LOGIN_FAILURES_ACCOUNT_CEILING },
        ]
      : [{ bucket: `login-device:${subject}|${who.knownDevice}`, limit: LOGIN_FAILURES_PER_ACCOUNT }];
  const buckets = limited.map(({ bucket }) => ({ bucket, windowStart: window.start }));
  const counts = await deps.counters.increment(deps.db, buckets);
  const giveBack = () => deps.counters.giveBack(deps.db, buckets);
  const over = limited.find(({ bucket, limit }) => (counts.get(bucket) ?? 0) > limit);
  if (over !== undefined) {
    await giveBack();
    throw throttled(over.limit, window.end, now);
  }
  return { giveBack };
}

export const WRONG = () =>
  new AppError('UNAUTHORIZED', 'Wrong e-mail address or password', {
    details: { fields: [{ field: 'password', message: 'wrong e-mail address or password' }] },
  });

export const CODE_REQUIRED = () =>
  new AppError('UNAUTHORIZED', 'Enter the code of your authenticator app', {
    details: {
      fields: [
        {
          field: 'code',
          message: 'required: the 6-digit code of your authenticator app, or a recovery code',
        },
      ],
    },
  });

export const WRONG_CODE = () =>
  new AppError('UNAUTHORIZED', 'Wrong or already used code', {
    details: { fields: [{ field: 'code', message: 'wrong or already used code' }] },
  });

/** True when `code` is a current TOTP code of `secret` not used before, or an unused recovery code. */
export async function acceptSecondFactor(
  deps: Pick<SignInDeps, 'db' | 'security' | 'clock'>,
  accountId: string,
  secret: string,
  lastStep: number | null,
  code: string,
  allowRecoveryCode = true,
): Promise<boolean> {
  const trimmed = code.trim();
  const step = totpStepOf(secret, trimmed, deps.clock.now(), lastStep);
  if (step !== null) return deps.security.acceptTotpStep(deps.db, accountId, step);
  if (!allowRecoveryCode || /^\d{6}$/.test(trimmed)) return false;
  return deps.security.useRecoveryCode(deps.db, accountId, hashRecoveryCode(trimmed), deps.clock.now());
}

export async function knownDeviceOf(
  deps: Pick<SignInDeps, 'db' | 'security'>,
  accountId: string | undefined,
  deviceToken: string | undefined,
): Promise<string | undefined> {
  if (accountId === undefined || deviceToken === undefined || deviceToken === '') return undefined;
  const hash = hashSessionToken(deviceToken);
  return (await deps.security.isKnownDevice(deps.db, hash, accountId)) ? hash : undefined;
}

/** Remembers this browser for the account (a new device cookie) unless it is known already. */
export async function rememberDevice(
  deps: Pick<SignInDeps, 'db' | 'security' | 'clock'>,
  accountId: string,
  known: string | undefined,
): Promise<{ newDeviceToken?: string }> {
  if (known !== undefined) return {};
  const token = newDeviceToken();
  await deps.security.rememberDevice(deps.db, hashSessionToken(token), accountId, deps.clock.now());
  return { newDeviceToken: token };
}

/**
 * A person signs in with their e-mail address and password, and their code when they enrolled a
 * second factor. Past a limit every attempt is refused until the window ends, right password or not
 * (a guesser learns nothing from it).
 */
export async function signIn(
  deps: SignInDeps,
  input: { email: string; password: string; code?: string | undefined } & SignInClient,
): Promise<SignedIn> {
  const found = await deps.accounts.findByEmail(deps.db, input.email);
  const known = await knownDeviceOf(deps, found?.account.id, input.deviceToken);
  const attempt = await reserveAttempt(deps, input.email, { client: input.client, knownDevice: known });
  // With no account the password is hashed anyway, so that a miss takes as long as a wrong password.
  const valid =
    found === null
      ? (await deps.passwords.hash(input.password)) === ''
      : await deps.passwords.verify(found.passwordHash, input.password);
  if (found === null || !valid || found.account.role === 'operator') throw WRONG();
  const factor = await deps.security.find(deps.db, found.account.id);
  if (factor.totpSecret !== null) {
    if (input.code === undefined || input.code.trim() === '') {
      // The password was right: asking for the code counts no failure.
      await attempt.giveBack();
      throw CODE_REQUIRED();
    }
    const ok = await acceptSecondFactor(
      deps,
      found.account.id,
      factor.totpSecret,
      factor.totpLastStep,
      input.code,
    );
    if (!ok) throw WRONG_CODE();
  }
  await attempt.giveBack();
  const started = await startSession(deps, deps.db, found.account);
  return { ...started, ...(await rememberDevice(deps, found.account.id, known)) };
}
