import type { Clock } from '@svc/clock';
import { AppError, errors } from '@svc/errors';
import { sameSecret } from './api-key';
import {
  adminTokenFingerprint,
  hashSessionToken,
  LOGIN_FAILURES_ACCOUNT_CEILING,
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_CLIENT,
  LOGIN_WINDOW_SECONDS,
  newDeviceToken,
  OPERATOR_ACCOUNT_ID,
  type Account,
} from './account';
import { windowOf } from './rate-limit';
import { hashRecoveryCode, newTotpSecret, totpStepOf, totpUri } from './second-factor';
import { startSession, type StartedSession } from './start-session';
import type {
  AccountSecurityStore,
  AccountStore,
  PasswordHasher,
  RateCounterStore,
  SessionStore,
  TransactionRunner,
} from './ports';

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

function throttled(limit: number, resetAt: Date, now: Date): AppError {
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

const WRONG = () =>
  new AppError('UNAUTHORIZED', 'Wrong e-mail address or password', {
    details: { fields: [{ field: 'password', message: 'wrong e-mail address or password' }] },
  });

const CODE_REQUIRED = () =>
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

const WRONG_CODE = () =>
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

async function knownDeviceOf(
  deps: Pick<SignInDeps, 'db' | 'security'>,
  accountId: string | undefined,
  deviceToken: string | undefined,
): Promise<string | undefined> {
  if (accountId === undefined || deviceToken === undefined || deviceToken === '') return undefined;
  const hash = hashSessionToken(deviceToken);
  return (await deps.security.isKnownDevice(deps.db, hash, accountId)) ? hash : undefined;
}

/** Remembers this browser for the account (a new device cookie) unless it is known already. */
async function rememberDevice(
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

export interface OperatorDeps extends SignInDeps {
  adminToken: string | undefined;
  /** ADMIN_TOTP_SECRET: the operator's TOTP secret preset by configuration (no enrolment). */
  adminTotpSecret?: string | undefined;
}

const OPERATOR_SUBJECT = 'operator';

async function operatorAccount(deps: OperatorDeps): Promise<Account> {
  let account: Account | null = await deps.accounts.find(deps.db, OPERATOR_ACCOUNT_ID);
  if (account === null) {
    account = {
      id: OPERATOR_ACCOUNT_ID,
      email: 'operator',
      name: 'Operator',
      role: 'operator',
      platformId: null,
      memberRole: 'owner',
      createdAt: deps.clock.now(),
    };
    // No password signs in as the operator: '!' is no argon2 hash. A race with another first
    // sign-in leaves one row either way.
    await deps.accounts.insert(deps.db, account, '!');
  }
  return account;
}

/** Checks the operator token (counted by the throttle); the attempt is returned to go on with. */
async function checkOperatorToken(
  deps: OperatorDeps,
  input: { token: string } & SignInClient,
): Promise<Attempt> {
  const known = await knownDeviceOf(deps, OPERATOR_ACCOUNT_ID, input.deviceToken);
  const attempt = await reserveAttempt(deps, OPERATOR_SUBJECT, { client: input.client, knownDevice: known });
  if (deps.adminToken === undefined) {
    await attempt.giveBack();
    throw new AppError('UNAUTHORIZED', 'Operator sign-in is disabled: ADMIN_TOKEN is not set', {
      details: 'Set ADMIN_TOKEN on the gateway.',
    });
  }
  if (!sameSecret(input.token, deps.adminToken)) {
    throw new AppError('UNAUTHORIZED', 'Wrong operator token', {
      details: { fields: [{ field: 'token', message: 'wrong operator token' }] },
    });
  }
  return attempt;
}

const NOT_ENROLLED = () =>
  new AppError('INVALID_STATE', 'The operator has no second factor yet', {
    details:
      'Enrol one: POST /dashboard/api/operator-session/totp with the token shows a TOTP secret; then sign in with the token and a code of it (or set ADMIN_TOTP_SECRET).',
  });

/**
 * The operator signs in with the operator token (ADMIN_TOKEN) and a TOTP code (README, "Operator
 * second factor"): of ADMIN_TOTP_SECRET when set, else of the secret enrolled with
 * operatorTotpEnrolment; the first code of a pending secret confirms it. Their session reaches the
 * operator API while ADMIN_TOKEN stays the one it was signed in with.
 */
export async function signInAsOperator(
  deps: OperatorDeps,
  input: { token: string; code?: string | undefined } & SignInClient,
): Promise<SignedIn> {
  const attempt = await checkOperatorToken(deps, input);
  const account = await operatorAccount(deps);
  const factor = await deps.security.find(deps.db, account.id);
  const secret = deps.adminTotpSecret ?? factor.totpSecret ?? factor.totpPendingSecret;
  if (secret === null) {
    await attempt.giveBack();
    throw NOT_ENROLLED();
  }
  if (input.code === undefined || input.code.trim() === '') {
    await attempt.giveBack();
    throw new AppError('UNAUTHORIZED', 'Enter the code of your authenticator app', {
      details: {
        fields: [{ field: 'code', message: 'required: the 6-digit code of your authenticator app' }],
      },
    });
  }
  const confirming = deps.adminTotpSecret === undefined && factor.totpSecret === null;
  if (confirming) {
    const step = totpStepOf(secret, input.code.trim(), deps.clock.now(), null);
    if (step === null) throw WRONG_CODE();
    await deps.security.confirmTotp(deps.db, account.id, secret, step, []);
  } else if (!(await acceptSecondFactor(deps, account.id, secret, factor.totpLastStep, input.code, false))) {
    throw WRONG_CODE();
  }
  await attempt.giveBack();
  const known = await knownDeviceOf(deps, account.id, input.deviceToken);
  const started = await startSession(deps, deps.db, account, {
    adminTokenFingerprint: adminTokenFingerprint(deps.adminToken ?? ''),
  });
  return { ...started, ...(await rememberDevice(deps, account.id, known)) };
}

/**
 * The operator's enrolment: with the right token and no confirmed second factor, a new TOTP secret
 * (shown once, as a secret and an otpauth:// URI) awaits its first code at sign-in. Once confirmed,
 * or with ADMIN_TOTP_SECRET set, it is 409: the token alone cannot replace the second factor.
 */
export async function operatorTotpEnrolment(
  deps: OperatorDeps,
  input: { token: string } & SignInClient,
): Promise<{ secret: string; otpauthUri: string }> {
  const attempt = await checkOperatorToken(deps, input);
  await attempt.giveBack();
  const account = await operatorAccount(deps);
  const factor = await deps.security.find(deps.db, account.id);
  if (deps.adminTotpSecret !== undefined || factor.totpSecret !== null) {
    throw new AppError('INVALID_STATE', 'The operator already has a second factor', {
      details:
        'Sign in with the token and a code. To replace a lost one, set ADMIN_TOTP_SECRET (or clear accounts.totp_secret of the operator).',
    });
  }
  const secret = newTotpSecret();
  await deps.security.setPendingTotp(deps.db, account.id, secret);
  return { secret, otpauthUri: totpUri(secret, 'operator') };
}
