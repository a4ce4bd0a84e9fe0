import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  appealBodySchema,
  contestBodySchema,
  enforcementOperations as ops,
  listBoxViolationsQuerySchema,
  listViolationsQuerySchema,
  resolveBodySchema,
} from '@svc/contracts/enforcement';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import { appealViolation } from '../../domain/appeal-violation.use-case';
import type { EnforcementContext } from '../../domain/ports';
import { contestResolution } from '../../domain/contest-resolution.use-case';
import { getViolation, listBoxViolations, listViolations } from '../../domain/query-enforcement.use-case';
import { resolveViolation } from '../../domain/resolve-violation.use-case';
import { callerOf } from './caller';
import {
  appealForm,
  boxViolationItem,
  contestForm,
  violationDetail,
  violationListItem,
} from './enforcement.presenter';

/**
 * `/v1/svc/violations` (docs/spec/service-interface.md, Endpoints: Violations), and the box owner's side of
 * them: its box's violations and contesting a resolution (issue 14).
 */
export function violationRoutes(router: Router, ctx: EnforcementContext): void {
  router.get(ops.listViolations.path, async (req, res) => {
    const query = parseQuery(listViolationsQuerySchema, req);
    const { items, total } = await listViolations(ctx, callerOf(req), query);
    respond(res, ops.listViolations, 200, {
      data: items.map(violationListItem),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getViolation.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, ops.getViolation, 200, {
      data: violationDetail(await getViolation(ctx, callerOf(req), id)),
    });
  });

  router.post(ops.resolveViolation.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(resolveBodySchema, req);
    const { violation, gracePeriod } = await resolveViolation(ctx, callerOf(req), id, body);
    respond(res, ops.resolveViolation, 200, {
      data: {
        id: violation.id,
        status: violation.status,
        resolution: body.resolution,
        resolvedAt: (violation.resolvedAt ?? gracePeriod.startedAt).toISOString(),
        gracePeriod: { id: gracePeriod.id, status: gracePeriod.status },
      },
    });
  });

  router.get(ops.listBoxViolations.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const query = parseQuery(listBoxViolationsQuerySchema, req);
    const { items, total } = await listBoxViolations(ctx, callerOf(req), id, query);
    respond(res, ops.listBoxViolations, 200, {
      data: items.map(boxViolationItem),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.post(ops.contestResolution.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(contestBodySchema, req);
    const { violation, contest } = await contestResolution(ctx, callerOf(req), id, body);
    respond(res, ops.contestResolution, 200, {
      data: { id: violation.id, status: violation.status, contest: contestForm(contest) },
    });
  });

  router.post(ops.appealViolation.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(appealBodySchema, req);
    const { violation, gracePeriod, appeal } = await appealViolation(ctx, callerOf(req), id, body);
    respond(res, ops.appealViolation, 200, {
      data: {
        id: violation.id,
        status: violation.status,
        appeal: appealForm(appeal),
        gracePeriod: { id: gracePeriod.id, status: gracePeriod.status },
      },
    });
  });
}
