import { AppError } from '@svc/errors';
import { sameSecret } from './api-key';
import { adminTokenFingerprint, OPERATOR_ACCOUNT_ID, type Account } from './account';
import { newTotpSecret, totpStepOf, totpUri } from './second-factor';
import { startSession } from './start-session';
import {
  acceptSecondFactor,
  knownDeviceOf,
  rememberDevice,
  reserveAttempt,
  WRONG_CODE,
  type Attempt,
  type SignedIn,
  type SignInClient,
  type SignInDeps,
} from './sign-in.use-case';

// The operator's sign-in (ADMIN_TOKEN and TOTP, ADR 0024's operator account): the creators' and
// platforms' sign-in is sign-in.use-case.ts, whose attempt and second-factor steps it shares.

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
