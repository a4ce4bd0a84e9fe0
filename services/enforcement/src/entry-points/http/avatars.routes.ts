import type { Response, Router } from 'express';
import {
  avatarIdParamSchema,
  enforcementOperations as ops,
  listAvatarsQuerySchema,
  reportAvatarBodySchema,
  updateAvatarBodySchema,
} from '@svc/contracts/enforcement';
import { parseBody, parseParams, parseQuery, provisionalAnswer, respond } from '@svc/service-kit';
import type { EnforcementContext } from '../../domain/ports';
import {
  deleteAvatar,
  getAvatar,
  listAvatars,
  reportAvatar,
  updateAvatar,
  type OnStored,
} from '../../domain/report-avatar.use-case';
import { callerOf } from './caller';
import { avatarForm } from './enforcement.presenter';

/**
 * The answer "stored, evaluation pending", given before detection is asked: a crash while it is
 * asked leaves the client this answer for its retry (ADR 0011), as a failed evaluation would.
 */
function storedAnswer(res: Response, status: (created: boolean) => number): OnStored {
  return ({ avatar, openViolations }, created) =>
    provisionalAnswer(res, status(created), { data: avatarForm(avatar, openViolations, true) });
}

/** `/v1/svc/avatars` (docs/spec/contracts.md §8). */
export function avatarRoutes(router: Router, ctx: EnforcementContext): void {
  router.post(ops.reportAvatar.path, async (req, res) => {
    const { id, ...body } = parseBody(reportAvatarBodySchema, req);
    const input = {
      name: body.name,
      description: body.description ?? null,
      imageUrl: body.imageUrl ?? null,
      creatorId: body.creatorId,
      creatorName: body.creatorName ?? null,
      creatorEmail: body.creatorEmail ?? null,
      userCount: body.userCount,
      commercial: body.commercial ?? false,
    };
    const { avatar, openViolations, created } = await reportAvatar(
      ctx,
      callerOf(req),
      id,
      input,
      storedAnswer(res, (created) => (created ? 201 : 200)),
    );
    respond(res, ops.reportAvatar, created ? 201 : 200, { data: avatarForm(avatar, openViolations, true) });
  });

  router.get(ops.listAvatars.path, async (req, res) => {
    const query = parseQuery(listAvatarsQuerySchema, req);
    const { items, total } = await listAvatars(ctx, callerOf(req), query);
    respond(res, ops.listAvatars, 200, {
      data: items.map(({ avatar, openViolations }) => avatarForm(avatar, openViolations, false)),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getAvatar.path, async (req, res) => {
    const { id } = parseParams(avatarIdParamSchema, req);
    const { avatar, openViolations } = await getAvatar(ctx, callerOf(req), id);
    respond(res, ops.getAvatar, 200, { data: avatarForm(avatar, openViolations, true) });
  });

  router.patch(ops.updateAvatar.path, async (req, res) => {
    const { id } = parseParams(avatarIdParamSchema, req);
    const body = parseBody(updateAvatarBodySchema, req);
    const { avatar, openViolations } = await updateAvatar(
      ctx,
      callerOf(req),
      id,
      body,
      storedAnswer(res, () => 200),
    );
    respond(res, ops.updateAvatar, 200, { data: avatarForm(avatar, openViolations, true) });
  });

  router.delete(ops.deleteAvatar.path, async (req, res) => {
    const { id } = parseParams(avatarIdParamSchema, req);
    const { avatar, resolvedViolations } = await deleteAvatar(ctx, callerOf(req), id);
    respond(res, ops.deleteAvatar, 200, {
      data: {
        id: avatar.id,
        deleted: true,
        deletedAt: (avatar.deletedAt ?? avatar.updatedAt).toISOString(),
        resolvedViolations,
      },
    });
  });
}
