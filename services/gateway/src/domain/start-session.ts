import { newId } from '@svc/ids';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import { hashSessionToken, newSessionSecrets, SESSION_TTL_MS, type Account } from './account';
import type { SessionStore } from './account-ports';

/** A session just started: the token goes into the cookie once and only its hash is kept. */
export interface StartedSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
  account: Account;
}

/**
 * Starts a session of `account` that expires SESSION_TTL_MS from now. An operator session keeps the
 * fingerprint of the ADMIN_TOKEN it was signed in with (refused once the token changes).
 */
export async function startSession(
  deps: { sessions: SessionStore; clock: Clock },
  q: Queryable,
  account: Account,
  options: { adminTokenFingerprint?: string } = {},
): Promise<StartedSession> {
  const { token, csrfToken } = newSessionSecrets();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await deps.sessions.insert(q, {
    id: newId('sess'),
    tokenHash: hashSessionToken(token),
    accountId: account.id,
    csrfToken,
    createdAt: now,
    expiresAt,
    adminTokenFingerprint: options.adminTokenFingerprint ?? null,
  });
  return { token, csrfToken, expiresAt, account };
}
