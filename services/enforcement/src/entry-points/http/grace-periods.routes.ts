import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  enforcementOperations as ops,
  listGracePeriodsQuerySchema,
  resolveBodySchema,
} from '@svc/contracts/enforcement';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import type { EnforcementContext } from '../../domain/ports';
import { getGracePeriod, listGracePeriods } from '../../domain/query-enforcement.use-case';
import { resolveGracePeriod } from '../../domain/resolve-violation.use-case';
import { callerOf } from './caller';
import { gracePeriodDetail, gracePeriodListItem } from './enforcement.presenter';

/** `/v1/svc/grace-periods` (docs/spec/service-interface.md, Endpoints: Grace periods). */
export function gracePeriodRoutes(router: Router, ctx: EnforcementContext): void {
  router.get(ops.listGracePeriods.path, async (req, res) => {
    const query = parseQuery(listGracePeriodsQuerySchema, req);
    const { items, total } = await listGracePeriods(ctx, callerOf(req), query);
    respond(res, ops.listGracePeriods, 200, {
      data: items.map(gracePeriodListItem),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getGracePeriod.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, ops.getGracePeriod, 200, {
      data: gracePeriodDetail(await getGracePeriod(ctx, callerOf(req), id)),
    });
  });

  router.post(ops.resolveGracePeriod.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(resolveBodySchema, req);
    const { gracePeriod } = await resolveGracePeriod(ctx, callerOf(req), id, body);
    respond(res, ops.resolveGracePeriod, 200, {
      data: {
        id: gracePeriod.id,
        status: gracePeriod.status,
        resolution: body.resolution,
        resolvedAt: (gracePeriod.resolvedAt ?? gracePeriod.startedAt).toISOString(),
        // One avatar per grace period: once resolved, none is left to comply.
        remainingAvatars: 0,
      },
    });
  });
}
