import { newId } from '@svc/ids';
import { AppError } from '@svc/errors';
import type { Account } from './account';
import { hashMailToken } from './account-mail';
import { limitsFor } from './plans';
import type { PlatformStore } from './ports';
import type { SessionStore } from './account-ports';
import type { AccountMailDeps } from './sign-up.use-case';
import { startSession, type StartedSession } from './start-session';

const LINK_UNUSABLE = () =>
  new AppError('VALIDATION_ERROR', 'This verification link has expired or was used already', {
    details: {
      fields: [
        {
          field: 'token',
          message: 'expired or already used: sign in, or sign up again for a new link',
        },
      ],
    },
  });

const NOT_THE_PASSWORD = () =>
  new AppError('VALIDATION_ERROR', 'This is not the password chosen when signing up', {
    details: {
      fields: [
        {
          field: 'password',
          message: 'not the password chosen at sign-up: enter that one, or sign up again',
        },
      ],
    },
  });

/**
 * The link mailed at sign-up is followed with the password chosen at sign-up: the address is
 * proven, so the account and its tenant (a platform record on the sandbox plan; ADR 0024) are
 * created together and a session starts (the person lands signed in). The password is asked again
 * because anyone may sign up with someone else's address: without it, the owner following the link
 * of a sign-up an attacker made would create an account with the attacker's password (account
 * pre-hijacking). The link works once; a wrong password leaves it usable.
 */
export async function verifyEmail(
  deps: AccountMailDeps & { platforms: PlatformStore; sessions: SessionStore },
  input: { token: string; password: string },
): Promise<StartedSession> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const pending = await deps.accountMail.takePendingSignUp(tx, hashMailToken(input.token), now);
    if (pending === null) throw LINK_UNUSABLE();
    // Thrown inside the transaction: the pending sign-up taken above is put back.
    if (!(await deps.passwords.verify(pending.passwordHash, input.password))) throw NOT_THE_PASSWORD();
    const account: Account = {
      id: newId('acct'),
      email: pending.email,
      name: pending.name,
      role: pending.role,
      platformId: newId('plat'),
      // Who signs up owns the tenant they create (docs/adr/0034).
      memberRole: 'owner',
      createdAt: now,
    };
    if ((await deps.accounts.findByEmail(tx, pending.email)) !== null) throw LINK_UNUSABLE();
    await deps.platforms.insert(tx, {
      id: account.platformId ?? '',
      name: pending.name,
      plan: 'sandbox',
      domain: null,
      limits: limitsFor('sandbox', null),
      createdAt: now,
    });
    // A race with another verification of the same address: the unique e-mail keeps one account.
    if (!(await deps.accounts.insert(tx, account, pending.passwordHash))) throw LINK_UNUSABLE();
    return startSession({ sessions: deps.sessions, clock: deps.clock }, tx, account);
  });
}
