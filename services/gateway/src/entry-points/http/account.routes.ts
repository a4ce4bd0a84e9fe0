import type { Request, Router } from 'express';
import {
  accountSecurityOperations,
  changePasswordBodySchema,
  confirmTotpBodySchema,
  disableTotpBodySchema,
  operatorTotpEnrolmentBodySchema,
} from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import { parseBody, respond } from '@svc/service-kit';
import { isCrossOrigin } from '../../domain/account';
import {
  changePassword,
  confirmTotpEnrolment,
  describeSecurity,
  disableTotp,
  endAllSessions,
  startTotpEnrolment,
} from '../../domain/account-security.use-case';
import { authenticateSession } from '../../domain/authenticate-session.use-case';
import type { GatewayContext } from '../../domain/gateway-context';
import { operatorTotpEnrolment } from '../../domain/operator-sign-in.use-case';
import { clearSessionCookie, clientAddress, deviceToken, sessionCredentials } from './session-cookie';

/**
 * The dashboard account's own security (#30; services/gateway/README.md, "Sign-in security"):
 * password change, sign out everywhere, two-step sign-in (TOTP and recovery codes), and the
 * operator's TOTP enrolment. Mounted before dashboardRoutes (whose catch-all answers 404).
 */
export function accountRoutes(router: Router, ctx: GatewayContext): void {
  const session = (req: Request) => authenticateSession(ctx, sessionCredentials(req));

  router.get('/dashboard/api/account/security', async (req, res) => {
    const active = await session(req);
    res.set('Cache-Control', 'no-store');
    respond(res, accountSecurityOperations.getAccountSecurity, 200, {
      data: await describeSecurity(ctx, active),
    });
  });

  router.post('/dashboard/api/account/password', async (req, res) => {
    const active = await session(req);
    const body = parseBody(changePasswordBodySchema, req);
    respond(res, accountSecurityOperations.changePassword, 200, {
      data: await changePassword(ctx, active, { ...body, client: clientAddress(req) }),
    });
  });

  router.delete('/dashboard/api/account/sessions', async (req, res) => {
    const active = await session(req);
    await endAllSessions(ctx, active);
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  router.post('/dashboard/api/account/totp', async (req, res) => {
    const active = await session(req);
    res.set('Cache-Control', 'no-store');
    respond(res, accountSecurityOperations.startTotpEnrolment, 201, {
      data: await startTotpEnrolment(ctx, active),
    });
  });

  router.post('/dashboard/api/account/totp/confirm', async (req, res) => {
    const active = await session(req);
    const body = parseBody(confirmTotpBodySchema, req);
    res.set('Cache-Control', 'no-store');
    respond(res, accountSecurityOperations.confirmTotpEnrolment, 200, {
      data: await confirmTotpEnrolment(ctx, active, body),
    });
  });

  router.post('/dashboard/api/account/totp/disable', async (req, res) => {
    const active = await session(req);
    const body = parseBody(disableTotpBodySchema, req);
    await disableTotp(ctx, active, { ...body, client: clientAddress(req) });
    res.status(204).end();
  });

  router.post('/dashboard/api/operator-session/totp', async (req, res) => {
    if (isCrossOrigin(req.header('origin'), req.header('host'))) {
      throw new AppError('FORBIDDEN', 'Cross-site request refused', {
        details: 'Sign in from the dashboard itself.',
      });
    }
    const body = parseBody(operatorTotpEnrolmentBodySchema, req);
    const enrolment = await operatorTotpEnrolment(ctx, {
      ...body,
      client: clientAddress(req),
      deviceToken: deviceToken(req),
    });
    res.set('Cache-Control', 'no-store');
    respond(res, accountSecurityOperations.operatorTotpEnrolment, 201, { data: enrolment });
  });
}
