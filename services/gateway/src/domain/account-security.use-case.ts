import { AppError } from '@svc/errors';
import { assertAcceptablePassword } from './password-policy';
import { reserveAttempt, type SignInDeps } from './sign-in.use-case';
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpStepOf, totpUri } from './second-factor';
import type { ActiveSession } from './account-ports';

// An account's own security settings from the dashboard's account page (#30): password change,
// sign out everywhere, and its second factor (TOTP with recovery codes).

type Deps = SignInDeps;

function notForOperator(session: ActiveSession, what: string): void {
  if (session.account.role === 'operator') {
    throw new AppError('FORBIDDEN', `The operator has no ${what}`, {
      details: 'The operator signs in with ADMIN_TOKEN and its TOTP code (services/gateway/README.md).',
    });
  }
}

const wrongPassword = (field: string) =>
  new AppError('VALIDATION_ERROR', 'Wrong password', {
    details: { fields: [{ field, message: 'wrong password' }] },
  });

/**
 * The account's current password, counted like a sign-in (a stolen session does not guess it
 * faster than the sign-in form would).
 */
async function checkPassword(
  deps: Deps,
  session: ActiveSession,
  password: string,
  field: string,
  client: string,
) {
  const attempt = await reserveAttempt(deps, session.account.email, { client });
  const found = await deps.accounts.findByEmail(deps.db, session.account.email);
  if (found === null || !(await deps.passwords.verify(found.passwordHash, password))) {
    throw wrongPassword(field);
  }
  await attempt.giveBack();
}

export interface SecuritySummary {
  totpEnabled: boolean;
  /** An enrolment started and not confirmed yet. */
  totpPending: boolean;
  recoveryCodesLeft: number;
}

export async function describeSecurity(deps: Deps, session: ActiveSession): Promise<SecuritySummary> {
  const factor = await deps.security.find(deps.db, session.account.id);
  return {
    totpEnabled: factor.totpSecret !== null,
    totpPending: factor.totpSecret === null && factor.totpPendingSecret !== null,
    recoveryCodesLeft: factor.recoveryCodesLeft,
  };
}

/**
 * A new password (the password policy applies): every other session of the account ends, this one
 * stays. Returns how many ended.
 */
export async function changePassword(
  deps: Deps,
  session: ActiveSession,
  input: { currentPassword: string; newPassword: string; client: string },
): Promise<{ endedSessions: number }> {
  notForOperator(session, 'password');
  await checkPassword(deps, session, input.currentPassword, 'currentPassword', input.client);
  assertAcceptablePassword(input.newPassword, {
    email: session.account.email,
    name: session.account.name,
    field: 'newPassword',
  });
  const hash = await deps.passwords.hash(input.newPassword);
  const now = deps.clock.now();
  const endedSessions = await deps.db.transaction(async (tx) => {
    await deps.security.setPasswordHash(tx, session.account.id, hash);
    return deps.sessions.endAllOf(tx, session.account.id, now, session.id);
  });
  return { endedSessions };
}

/** Sign out everywhere: every session of the account ends, this one too. */
export async function endAllSessions(deps: Deps, session: ActiveSession): Promise<{ endedSessions: number }> {
  return { endedSessions: await deps.sessions.endAllOf(deps.db, session.account.id, deps.clock.now()) };
}

/** Starts a TOTP enrolment: a new secret, shown once, that a first code confirms. */
export async function startTotpEnrolment(
  deps: Deps,
  session: ActiveSession,
): Promise<{ secret: string; otpauthUri: string }> {
  notForOperator(session, 'account page enrolment');
  const factor = await deps.security.find(deps.db, session.account.id);
  if (factor.totpSecret !== null) {
    throw new AppError('INVALID_STATE', 'Two-step sign-in is already on', {
      details: 'Turn it off first (with your password) to enrol another authenticator.',
    });
  }
  const secret = newTotpSecret();
  await deps.security.setPendingTotp(deps.db, session.account.id, secret);
  return { secret, otpauthUri: totpUri(secret, session.account.email) };
}

/** Confirms the enrolment with a first code: a code is required from the next sign-in on; ten recovery codes, shown once. */
export async function confirmTotpEnrolment(
  deps: Deps,
  session: ActiveSession,
  input: { code: string },
): Promise<{ recoveryCodes: string[] }> {
  notForOperator(session, 'account page enrolment');
  const factor = await deps.security.find(deps.db, session.account.id);
  if (factor.totpSecret !== null || factor.totpPendingSecret === null) {
    throw new AppError('INVALID_STATE', 'No enrolment is waiting for a code', {
      details: 'Start one first (POST /dashboard/api/account/totp).',
    });
  }
  const step = totpStepOf(factor.totpPendingSecret, input.code.trim(), deps.clock.now(), null);
  if (step === null) {
    throw new AppError('VALIDATION_ERROR', 'Wrong code', {
      details: {
        fields: [
          { field: 'code', message: 'not the current code of the secret shown; check the device clock' },
        ],
      },
    });
  }
  const recoveryCodes = newRecoveryCodes();
  await deps.db.transaction((tx) =>
    deps.security.confirmTotp(
      tx,
      session.account.id,
      factor.totpPendingSecret ?? '',
      step,
      recoveryCodes.map(hashRecoveryCode),
    ),
  );
  return { recoveryCodes };
}

/** Turns the second factor off (the current password proves it is the owner) and drops the recovery codes. */
export async function disableTotp(
  deps: Deps,
  session: ActiveSession,
  input: { password: string; client: string },
): Promise<void> {
  notForOperator(session, 'account page enrolment');
  await checkPassword(deps, session, input.password, 'password', input.client);
  await deps.security.disableTotp(deps.db, session.account.id);
}
