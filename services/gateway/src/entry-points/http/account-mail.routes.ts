import type { Request, Router } from 'express';
import { AppError } from '@svc/errors';
import {
  accountMailOperations,
  passwordResetRequestBodySchema,
  resetPasswordBodySchema,
  verifyEmailBodySchema,
} from '@svc/contracts/gateway';
import { parseBody, respond } from '@svc/service-kit';
import { isCrossOrigin, isLocalHost } from '../../domain/account';
import type { MailLinks } from '../../domain/account-mail';
import type { GatewayContext } from '../../domain/gateway-context';
import { requestPasswordReset } from '../../domain/request-password-reset.use-case';
import { resetPassword } from '../../domain/reset-password.use-case';
import { verifyEmail } from '../../domain/verify-email.use-case';
import { presentSession } from './presenters';
import { setSessionCookie } from './session-cookie';

/**
 * Where mailed links point: PUBLIC_BASE_URL. Without it only a local Host is believed (make dev,
 * tests): a link built from any Host header would let someone have a victim's reset link point at
 * their own site (host header poisoning).
 */
export function mailLinksOf(req: Request, ctx: GatewayContext): MailLinks {
  if (ctx.publicBaseUrl !== undefined) return { baseUrl: ctx.publicBaseUrl };
  const host = req.header('host');
  if (host !== undefined && isLocalHost(host)) return { baseUrl: `${req.protocol}://${host}` };
  throw new AppError('INVALID_STATE', 'Account mail is not configured', {
    details: 'Set PUBLIC_BASE_URL on the gateway: the links mailed to accounts point there.',
  });
}

/** The client's address: the socket's, or behind the proxies TRUST_PROXY names, the one they forwarded. */
export function mailClientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** Another site's page may not start these (login CSRF, mail flooding from a visitor's browser). */
export function refuseCrossSiteMail(req: Request): void {
  if (isCrossOrigin(req.header('origin'), req.header('host'))) {
    throw new AppError('FORBIDDEN', 'Cross-site request refused', {
      details: 'Use the dashboard itself.',
    });
  }
}

/**
 * Account mail (#30, docs/spec/contracts.md §17): following the verification link mailed at sign-up
 * (the sign-up itself is POST /dashboard/api/accounts in dashboard.routes.ts), asking for a
 * password-reset link, and setting a new password with it.
 */
export function accountMailRoutes(router: Router, ctx: GatewayContext): void {
  router.post('/dashboard/api/email-verifications', async (req, res) => {
    refuseCrossSiteMail(req);
    const body = parseBody(verifyEmailBodySchema, req);
    const started = await verifyEmail(ctx, body);
    setSessionCookie(req, res, started.token, started.expiresAt);
    respond(res, accountMailOperations.verifyEmail, 200, {
      data: presentSession(ctx, started),
    });
  });

  router.post('/dashboard/api/password-resets', async (req, res) => {
    refuseCrossSiteMail(req);
    const body = parseBody(passwordResetRequestBodySchema, req);
    const links = mailLinksOf(req, ctx);
    const answer = await requestPasswordReset(ctx, body, { client: mailClientOf(req), links });
    respond(res, accountMailOperations.requestPasswordReset, 202, { data: answer });
  });

  router.post('/dashboard/api/password-resets/complete', async (req, res) => {
    refuseCrossSiteMail(req);
    const body = parseBody(resetPasswordBodySchema, req);
    respond(res, accountMailOperations.resetPassword, 200, { data: await resetPassword(ctx, body) });
  });
}
