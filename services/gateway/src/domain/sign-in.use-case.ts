import type { Clock } from '@svc/clock';
import { AppError } from '@svc/errors';
import { sameSecret } from './api-key';
import {
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_CLIENT,
  LOGIN_WINDOW_SECONDS,
  OPERATOR_ACCOUNT_ID,
  type Account,
} from './account';
import { windowOf } from './rate-limit';
import { startSession, type StartedSession } from './start-session';
import type {
  AccountStore,
  PasswordHasher,
  RateCounterStore,
  SessionStore,
  TransactionRunner,
} from './ports';

interface SignInDeps {
  db: TransactionRunner;
  accounts: AccountStore;
  sessions: SessionStore;
  counters: RateCounterStore;
  passwords: PasswordHasher;
  clock: Clock;
}

function throttled(retryAfter: number): AppError {
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return new AppError(
    'RATE_LIMITED',
    `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    {
      details: { limit: LOGIN_FAILURES_PER_ACCOUNT, remaining: 0, retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    },
  );
}

/**
 * Failed sign-ins are counted per address and per client; past the limit every attempt is refused
 * until the window ends, right password or not (a guesser learns nothing from it).
 */
async function guardAttempt(
  deps: SignInDeps,
  subject: string,
  client: string,
): Promise<{ record(): Promise<void> }> {
  const window = windowOf(deps.clock.now(), LOGIN_WINDOW_SECONDS);
  const subjectBucket = `login:${subject}`;
  const clientBucket = `login-client:${client}`;
  const [bySubject, byClient] = await Promise.all([
    deps.counters.read(deps.db, subjectBucket, window.start),
    deps.counters.read(deps.db, clientBucket, window.start),
  ]);
  const retryAfter = Math.max(1, Math.ceil((window.end.getTime() - deps.clock.now().getTime()) / 1000));
  if (bySubject >= LOGIN_FAILURES_PER_ACCOUNT || byClient >= LOGIN_FAILURES_PER_CLIENT) {
    throw throttled(retryAfter);
  }
  return {
    record: async () => {
      await deps.counters.increment(deps.db, [
        { bucket: subjectBucket, windowStart: window.start },
        { bucket: clientBucket, windowStart: window.start },
      ]);
    },
  };
}

const WRONG = () =>
  new AppError('UNAUTHORIZED', 'Wrong e-mail address or password', {
    details: { fields: [{ field: 'password', message: 'wrong e-mail address or password' }] },
  });

/** A person signs in with their e-mail address and password. */
export async function signIn(
  deps: SignInDeps,
  input: { email: string; password: string; client: string },
): Promise<StartedSession> {
  const attempt = await guardAttempt(deps, input.email, input.client);
  const found = await deps.accounts.findByEmail(deps.db, input.email);
  // With no account the password is hashed anyway, so that a miss takes as long as a wrong password.
  const valid =
    found === null
      ? (await deps.passwords.hash(input.password)) === ''
      : await deps.passwords.verify(found.passwordHash, input.password);
  if (found === null || !valid || found.account.role === 'operator') {
    await attempt.record();
    throw WRONG();
  }
  return startSession(deps, deps.db, found.account);
}

/** The operator signs in with the operator token (ADMIN_TOKEN); their session reaches the operator API. */
export async function signInAsOperator(
  deps: SignInDeps & { adminToken: string | undefined },
  input: { token: string; client: string },
): Promise<StartedSession> {
  const attempt = await guardAttempt(deps, 'operator', input.client);
  if (deps.adminToken === undefined) {
    throw new AppError('UNAUTHORIZED', 'Operator sign-in is disabled: ADMIN_TOKEN is not set', {
      details: 'Set ADMIN_TOKEN on the gateway.',
    });
  }
  if (!sameSecret(input.token, deps.adminToken)) {
    await attempt.record();
    throw new AppError('UNAUTHORIZED', 'Wrong operator token', {
      details: { fields: [{ field: 'token', message: 'wrong operator token' }] },
    });
  }
  let account: Account | null = await deps.accounts.find(deps.db, OPERATOR_ACCOUNT_ID);
  if (account === null) {
    account = {
      id: OPERATOR_ACCOUNT_ID,
      email: 'operator',
      name: 'Operator',
      role: 'operator',
      platformId: null,
      createdAt: deps.clock.now(),
    };
    // No password signs in as the operator: '!' is no argon2 hash. A race with another first
    // sign-in leaves one row either way.
    await deps.accounts.insert(deps.db, account, '!');
  }
  return startSession(deps, deps.db, account);
}
