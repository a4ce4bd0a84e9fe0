import type { Router } from 'express';
import { AppError } from '@svc/errors';
import { requestLogOperations, requestLogQuerySchema } from '@svc/contracts/gateway';
import { parseQuery, respond } from '@svc/service-kit';
import { authenticateSession } from '../../domain/authenticate-session.use-case';
import type { GatewayContext } from '../../domain/gateway-context';
import { sessionCredentials } from './session-cookie';

/** The signed-in platform's request log (#32): its own keys' requests only. */
export function requestLogRoutes(router: Router, ctx: GatewayContext): void {
  router.get('/dashboard/api/request-logs', async (req, res) => {
    const session = await authenticateSession(ctx, sessionCredentials(req));
    const platformId = session.account.platformId;
    if (platformId === null) {
      throw new AppError('FORBIDDEN', 'The operator has no API keys', { details: 'Sign in as a platform.' });
    }
    const query = parseQuery(requestLogQuerySchema, req);
    // One snapshot: requests logged while the page is read would make the total disagree with it.
    const { items, total } = await ctx.db.transaction((tx) => ctx.requestLog.recent(tx, platformId, query), {
      snapshot: true,
    });
    res.set('Cache-Control', 'no-store');
    respond(res, requestLogOperations.listRequestLogs, 200, {
      data: items.map(({ platformId: _tenant, at, ...entry }) => ({ ...entry, at: at.toISOString() })),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });
}
