import type { Request, Response, Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  decideAppealBodySchema,
  enforcementOperations as ops,
  reviewAppealsQuerySchema,
} from '@svc/contracts/enforcement';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import {
  decideAppeal,
  decideOwnAppealForTesting,
  getAppeal,
  listAppealsForReview,
} from '../../domain/appeal-violation.use-case';
import type { EnforcementContext } from '../../domain/ports';
import { callerOf } from './caller';
import { appealDetail, caseSummary } from './enforcement.presenter';

/** Appeals: reading one, the reviewer's decision (operator API) and the sandbox test helper (docs/spec/contracts.md §8, §9). */
export function appealRoutes(router: Router, ctx: EnforcementContext): void {
  router.get(ops.listAppealsForReview.path, async (req, res) => {
    const query = parseQuery(reviewAppealsQuerySchema, req);
    const { items, total } = await listAppealsForReview(ctx, callerOf(req), query);
    respond(res, ops.listAppealsForReview, 200, {
      data: items.map(({ appeal, violation }) => ({
        ...appealDetail(appeal),
        platformId: appeal.platformId,
        violation,
      })),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getAppeal.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, ops.getAppeal, 200, { data: appealDetail(await getAppeal(ctx, callerOf(req), id)) });
  });

  const decide = (decider: typeof decideAppeal) => async (req: Request, res: Response) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(decideAppealBodySchema, req);
    const result = await decider(ctx, callerOf(req), id, body);
    respond(res, ops.decideAppeal, 200, { data: { ...appealDetail(result.appeal), ...caseSummary(result) } });
  };
  router.post(ops.decideAppeal.path, decide(decideAppeal));
  router.post(ops.testHelperDecideAppeal.path, decide(decideOwnAppealForTesting));
}
