import type { Router } from 'express';
import {
  avatarIdParamSchema,
  enforcementOperations as ops,
  listAvatarsQuerySchema,
  reportAvatarBodySchema,
  updateAvatarBodySchema,
} from '@svc/contracts/enforcement';
import { parseBody, parseParams, parseQuery } from '@svc/service-kit';
import type { EnforcementContext } from '../../domain/ports';
import {
  deleteAvatar,
  getAvatar,
  listAvatars,
  reportAvatar,
  updateAvatar,
} from '../../domain/report-avatar.use-case';
import { callerOf } from './caller';
import { avatarForm } from './enforcement.presenter';

/** `/v1/svc/avatars` (docs/spec/contracts.md §8). */
export function avatarRoutes(router: Router, ctx: EnforcementContext): void {
  router.post(ops.reportAvatar.path, async (req, res) => {
    const { id, ...body } = parseBody(reportAvatarBodySchema, req);
    const { avatar, openViolations, created } = await reportAvatar(ctx, callerOf(req), id, {
      name: body.name,
      description: body.description ?? null,
      imageUrl: body.imageUrl ?? null,
      creatorId: body.creatorId,
      creatorName: body.creatorName ?? null,
      creatorEmail: body.creatorEmail ?? null,
      userCount: body.userCount,
      commercial: body.commercial ?? false,
    });
    res.status(created ? 201 : 200).json({ data: avatarForm(avatar, openViolations, true) });
  });

  router.get(ops.listAvatars.path, async (req, res) => {
    const query = parseQuery(listAvatarsQuerySchema, req);
    const { items, total } = await listAvatars(ctx, callerOf(req), query);
    res.json({
      data: items.map(({ avatar, openViolations }) => avatarForm(avatar, openViolations, false)),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getAvatar.path, async (req, res) => {
    const { id } = parseParams(avatarIdParamSchema, req);
    const { avatar, openViolations } = await getAvatar(ctx, callerOf(req), id);
    res.json({ data: avatarForm(avatar, openViolations, true) });
  });

  router.patch(ops.updateAvatar.path, async (req, res) => {
    const { id } = parseParams(avatarIdParamSchema, req);
    const body = parseBody(updateAvatarBodySchema, req);
    const { avatar, openViolations } = await updateAvatar(ctx, callerOf(req), id, body);
    res.json({ data: avatarForm(avatar, openViolations, true) });
  });

  router.delete(ops.deleteAvatar.path, async (req, res) => {
    const { id } = parseParams(avatarIdParamSchema, req);
    const { avatar, resolvedViolations } = await deleteAvatar(ctx, callerOf(req), id);
    res.json({
      data: {
        id: avatar.id,
        deleted: true,
        deletedAt: (avatar.deletedAt ?? avatar.updatedAt).toISOString(),
        resolvedViolations,
      },
    });
  });
}
