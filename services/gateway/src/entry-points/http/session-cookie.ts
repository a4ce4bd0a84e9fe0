import type { Request, Response } from 'express';
import { parse } from 'cookie';
import { CSRF_HEADER, SESSION_COOKIE } from '@svc/contracts/gateway';
import { DEVICE_COOKIE, DEVICE_TTL_MS, isLocalHost } from '../../domain/account';
import type { SessionCredentials } from '../../domain/authenticate-session.use-case';

/** What the request carries of a dashboard session: its cookie, the CSRF header and where it came from. */
export function sessionCredentials(req: Request): SessionCredentials {
  const header = req.header('cookie');
  const token = header === undefined ? undefined : parse(header)[SESSION_COOKIE];
  return {
    token,
    method: req.method,
    csrfToken: req.header(CSRF_HEADER),
    origin: req.header('origin'),
    host: req.header('host'),
  };
}

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it), Secure everywhere but localhost (served over plain http in development), whole origin (it
 * authenticates the public API too).
 */
export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: !isLocalHost(req.header('host')),
    path: '/',
    expires: expiresAt,
  });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'strict',
    secure: !isLocalHost(req.header('host')),
    path: '/',
  });
}

/** The known-device cookie (OWASP device cookies), when the browser sent one. */
export function deviceToken(req: Request): string | undefined {
  const header = req.header('cookie');
  return header === undefined ? undefined : parse(header)[DEVICE_COOKIE];
}

/**
 * Set after a successful sign-in: this browser's later sign-ins are counted apart from every other
 * client's (an attacker's guesses elsewhere do not lock it out). Only the sign-in endpoints read it.
 */
export function setDeviceCookie(req: Request, res: Response, token: string | undefined): void {
  if (token === undefined) return;
  res.cookie(DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: !isLocalHost(req.header('host')),
    path: '/dashboard/api',
    maxAge: DEVICE_TTL_MS,
  });
}

/** The client's address: the socket's, or behind the proxies TRUST_PROXY names, the one they forwarded. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
