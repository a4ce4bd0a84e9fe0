import { newId } from '@svc/ids';
import type { Clock } from '@svc/clock';
import { AppError } from '@svc/errors';
import type { Account } from './account';
import { startSession, type StartedSession } from './start-session';
import { limitsFor } from './plans';
import type { AccountStore, PasswordHasher, PlatformStore, SessionStore, TransactionRunner } from './ports';

export interface SignUpInput {
  email: string;
  password: string;
  name: string;
  role: 'creator' | 'platform';
}

/**
 * A person signs up (ADR 0024): their own tenant (a platform record on the sandbox plan) and their
 * account are created together, and they are signed in. A creator's tenant owns claims and boxes
 * exactly as any platform's key would (docs/spec/contracts.md §6, §14).
 */
export async function signUp(
  deps: {
    db: TransactionRunner;
    platforms: PlatformStore;
    accounts: AccountStore;
    sessions: SessionStore;
    passwords: PasswordHasher;
    clock: Clock;
  },
  input: SignUpInput,
): Promise<StartedSession> {
  // Hashed before the transaction: argon2 takes tens of milliseconds.
  const passwordHash = await deps.passwords.hash(input.password);
  const now = deps.clock.now();
  const account: Account = {
    id: newId('acct'),
    email: input.email,
    name: input.name,
    role: input.role,
    platformId: newId('plat'),
    createdAt: now,
  };
  return deps.db.transaction(async (tx) => {
    await deps.platforms.insert(tx, {
      id: account.platformId ?? '',
      name: input.name,
      plan: 'sandbox',
      domain: null,
      limits: limitsFor('sandbox', null),
      createdAt: now,
    });
    if (!(await deps.accounts.insert(tx, account, passwordHash))) {
      throw new AppError('VALIDATION_ERROR', 'An account with this e-mail address exists; sign in instead', {
        details: { fields: [{ field: 'email', message: 'already has an account; sign in instead' }] },
      });
    }
    return startSession({ sessions: deps.sessions, clock: deps.clock }, tx, account);
  });
}
