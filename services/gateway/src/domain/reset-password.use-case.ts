import { AppError } from '@svc/errors';
import { hashMailToken } from './account-mail';
import { assertAcceptablePassword } from './password-policy';
import type { SessionStore } from './account-ports';
import type { AccountMailDeps } from './sign-up.use-case';

const LINK_UNUSABLE = () =>
  new AppError('VALIDATION_ERROR', 'This reset link has expired or was used already', {
    details: {
      fields: [{ field: 'token', message: 'expired or already used: ask for a new reset link' }],
    },
  });

/**
 * A reset link is followed with a new password: the policy checks it, the link is used up (once,
 * even when followed twice at the same time), the account's other links stop working, and every
 * session of the account ends (whoever knew the old password is signed out). The person then signs in.
 */
export async function resetPassword(
  deps: AccountMailDeps & { sessions: SessionStore },
  input: { token: string; password: string },
): Promise<{ status: 'password_reset'; sessionsEnded: number }> {
  const tokenHash = hashMailToken(input.token);
  const now = deps.clock.now();
  // Looked up first, so that a dead link says so before the password is judged; used up below
  // (a refused password leaves the link usable for another try).
  const accountId = await deps.accountMail.findReset(deps.db, tokenHash, now);
  if (accountId === null) throw LINK_UNUSABLE();
  const account = await deps.accounts.find(deps.db, accountId);
  if (account === null) throw LINK_UNUSABLE();
  assertAcceptablePassword(input.password, { email: account.email, name: account.name });
  const passwordHash = await deps.passwords.hash(input.password);
  return deps.db.transaction(async (tx) => {
    if ((await deps.accountMail.useReset(tx, tokenHash, deps.clock.now())) !== accountId)
      throw LINK_UNUSABLE();
    await deps.accountMail.setPasswordHash(tx, accountId, passwordHash);
    await deps.accountMail.endResetsOf(tx, accountId, deps.clock.now());
    const sessionsEnded = await deps.sessions.endAllOf(tx, accountId, deps.clock.now());
    return { status: 'password_reset' as const, sessionsEnded };
  });
}
