import type { Router } from 'express';
import { batchReadBodySchema, dashboardBatchOperations } from '@svc/contracts/gateway';
import { currentRequestId } from '@svc/logger';
import { parseBody, respond } from '@svc/service-kit';
import { batchRead } from '../../domain/batch-read.use-case';
import type { GatewayContext } from '../../domain/gateway-context';
import { sessionCredentials } from './session-cookie';

/** A dashboard page's reads in one call (issue #32): the budget's headers on the answer, as on any counted call. */
export function batchRoutes(router: Router, ctx: GatewayContext): void {
  router.post('/dashboard/api/batch', async (req, res) => {
    const { rateHeaders, answers } = await batchRead(ctx, {
      session: sessionCredentials(req),
      readPaths: () => parseBody(batchReadBodySchema, req).requests.map((read) => read.path),
      requestId: currentRequestId() ?? '',
    });
    res.set(rateHeaders).set('Cache-Control', 'no-store');
    respond(res, dashboardBatchOperations.batchRead, 200, { data: { responses: answers } });
  });
}
