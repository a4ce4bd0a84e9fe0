import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  boxStatsQuerySchema,
  createBoxBodySchema,
  listBoxesQuerySchema,
  registryOperations as ops,
  updateBoxBodySchema,
} from '@svc/contracts/registry';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import { EMPTY_SUMMARY } from '../../domain/box-stats';
import { createBox } from '../../domain/create-box.use-case';
import { deleteBox } from '../../domain/delete-box.use-case';
import type { RegistryContext } from '../../domain/ports';
import { getBox, getBoxStatistics, listBoxes } from '../../domain/query-boxes.use-case';
import { updateBox } from '../../domain/update-box.use-case';
import { boxDetail, boxListItem, boxStatistics } from './box.presenter';
import { callerOf } from './caller';

/** `/v1/svc/boxes` (docs/spec/service-interface.md, Endpoints: Boxes). */
export function boxRoutes(router: Router, ctx: RegistryContext): void {
  router.get(ops.listBoxes.path, async (req, res) => {
    const query = parseQuery(listBoxesQuerySchema, req);
    const { items, total } = await listBoxes(ctx, callerOf(req), query);
    respond(res, ops.listBoxes, 200, {
      data: items.map(({ box, stats }) => boxListItem(box, stats)),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getBox.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { box, stats } = await getBox(ctx, callerOf(req), id);
    respond(res, ops.getBox, 200, { data: boxDetail(box, stats) });
  });

  router.post(ops.createBox.path, async (req, res) => {
    const body = parseBody(createBoxBodySchema, req);
    const { box, initialScan } = await createBox(ctx, callerOf(req), body);
    respond(res, ops.createBox, 201, {
      data: {
        ...boxDetail(box, EMPTY_SUMMARY),
        initialScan: {
          status: initialScan.status,
          estimatedCompletion: initialScan.estimatedCompletion.toISOString(),
        },
      },
    });
  });

  router.patch(ops.updateBox.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(updateBoxBodySchema, req);
    const caller = callerOf(req);
    await updateBox(ctx, caller, id, body);
    const { box, stats } = await getBox(ctx, caller, id);
    respond(res, ops.updateBox, 200, { data: boxDetail(box, stats) });
  });

  router.delete(ops.deleteBox.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const deleted = await deleteBox(ctx, callerOf(req), id);
    respond(res, ops.deleteBox, 200, { data: { ...deleted, deletedAt: deleted.deletedAt.toISOString() } });
  });

  router.get(ops.getBoxStats.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { period } = parseQuery(boxStatsQuerySchema, req);
    respond(res, ops.getBoxStats, 200, {
      data: boxStatistics(await getBoxStatistics(ctx, callerOf(req), id, period)),
    });
  });
}
