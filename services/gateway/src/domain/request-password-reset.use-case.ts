import {
  hashMailToken,
  newMailToken,
  PASSWORD_RESET_TTL_MS,
  passwordResetMail,
  type MailLinks,
} from './account-mail';
import { queueMail, throttleAccountMail, type AccountMailDeps } from './sign-up.use-case';

/** The one answer to every accepted request, whether the address has an account or not. */
export interface PasswordResetRequested {
  status: 'reset_sent';
  email: string;
}

/**
 * Someone asks for a password-reset link for an address. When it has an account (not the
 * operator's, which has no password), a single-use link valid for 30 minutes is mailed; the answer
 * is the same either way, so it tells nobody whether the address has an account.
 */
export async function requestPasswordReset(
  deps: AccountMailDeps,
  input: { email: string },
  request: { client: string; links: MailLinks },
): Promise<PasswordResetRequested> {
  await throttleAccountMail(deps, 'password-reset', { client: request.client, email: input.email });
  const token = newMailToken();
  const now = deps.clock.now();
  const queued = await deps.db.transaction(async (tx) => {
    const found = await deps.accounts.findByEmail(tx, input.email);
    if (found === null || found.account.role === 'operator') return false;
    await deps.accountMail.saveReset(tx, {
      tokenHash: hashMailToken(token),
      accountId: found.account.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS),
    });
    await queueMail(deps, tx, passwordResetMail(request.links, input.email, found.account.name, token));
    return true;
  });
  if (queued) deps.mailQueued?.();
  return { status: 'reset_sent', email: input.email };
}
