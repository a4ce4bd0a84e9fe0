import type { Router } from 'express';
import { z } from 'zod';
import { INTERNAL_USAGE_PATH } from '@svc/contracts/billing';
import { idSchema, sharedSchemas } from '@svc/contracts/common';
import { errors } from '@svc/errors';
import { authOf, isServiceCaller, parseParams } from '@svc/service-kit';
import type { BillingContext } from '../../domain/ports';
import { queryUsage } from '../../domain/query-usage.use-case';

const usageParamsSchema = z.object({ id: idSchema, period: sharedSchemas.period });

/**
 * A license's usage of one period for licensing's license detail (docs/adr/0016): not a public
 * operation, answered only to a service's own internal token (a platform's token gets 404).
 */
export function internalUsageRoutes(router: Router, ctx: BillingContext): void {
  router.get(INTERNAL_USAGE_PATH, async (req, res) => {
    const { id, period: usagePeriod } = parseParams(usageParamsSchema, req);
    if (!isServiceCaller(authOf(req))) throw errors.notFound('License', id);
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json({ data: await queryUsage(ctx, id, usagePeriod) });
  });
}
