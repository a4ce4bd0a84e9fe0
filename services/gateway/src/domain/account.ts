import { createHash, createHmac } from 'node:crypto';
import type { MemberRole } from '@svc/contracts/gateway';
import { randomBase62 } from '@svc/ids';

/** Who an account is (ADR 0024): a creator or a platform acts as its tenant; the operator has none. */
export type AccountRole = 'creator' | 'platform' | 'operator';

export interface Account {
  id: string;
  email: string;
  name: string;
  role: AccountRole;
  /** The tenant (platform record) the account acts as; null for the operator. */
  platformId: string | null;
  /** Its role among the tenant's members (docs/adr/0034); the operator's is `owner`, and unused. */
  memberRole: MemberRole;
  createdAt: Date;
}

/** How long a session lives from sign-in; sign-out ends it sooner. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * Sign-in attempts, counted per window (services/gateway/README.md, "Sign-in throttling"): at most
 * LOGIN_FAILURES_PER_ACCOUNT failures for one account from one client address (or one known device),
 * LOGIN_FAILURES_PER_CLIENT from one address across accounts, and LOGIN_FAILURES_ACCOUNT_CEILING for
 * one account from every address together (a known device is exempt from the last two).
 */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_FAILURES_PER_ACCOUNT = 5;
export const LOGIN_FAILURES_PER_CLIENT = 20;
export const LOGIN_FAILURES_ACCOUNT_CEILING = 100;

/** The cookie of a browser that signed in before (OWASP device cookies), and how long it is kept. */
export const DEVICE_COOKIE = 'svc_device';
export const DEVICE_TTL_MS = 365 * 24 * 60 * 60 * 1000;

/** The operator's account: sessions started with the operator token belong to it. */
export const OPERATOR_ACCOUNT_ID = 'acct_operator000000000000000';

/** A new session's cookie value (238 bits) and its CSRF token. */
export function newSessionSecrets(): { token: string; csrfToken: string } {
  return { token: `sess_${randomBase62(40)}`, csrfToken: randomBase62(32) };
}

/** The stored form of a session token: a fast hash is enough for 238 random bits. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A known device's cookie value (238 bits); only its hash (hashSessionToken) is kept. */
export function newDeviceToken(): string {
  return `dev_${randomBase62(40)}`;
}

/**
 * What an operator session keeps of the ADMIN_TOKEN it was signed in with: a new token (restart
 * with another ADMIN_TOKEN) no longer matches, and the session is refused.
 */
export function adminTokenFingerprint(token: string): string {
  return createHmac('sha256', 'svc-operator-session').update(token).digest('hex');
}

/** Methods that change state: a session must prove them with its CSRF token. */
export function isStateChanging(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

/**
 * True when a browser's Origin header names another site than the one it sent the request to.
 * No Origin (curl, same-origin GET in some browsers) is not cross-site by itself: the CSRF token
 * still has to match.
 */
export function isCrossOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined || origin === '') return false;
  if (origin === 'null' || host === undefined) return true;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

/** Localhost is served over plain http in development: there the cookie cannot be `Secure`. */
export function isLocalHost(host: string | undefined): boolean {
  const name = (host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '127.0.0.1' || name === '::1' || name.endsWith('.localhost');
}
