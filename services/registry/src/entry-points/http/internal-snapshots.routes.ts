import type { Router } from 'express';
import { idParamSchema, INTERNAL_BOX_PATH } from '@svc/contracts';
import { errors } from '@svc/errors';
import { authOf, isServiceCaller, parseParams } from '@svc/service-kit';
import type { RegistryContext } from '../../domain/ports';
import { readBoxSnapshot } from '../../domain/read-box-snapshot.use-case';

/**
 * Read-through for other services (ADR 0010): not a public operation, answered only to a
 * service's own internal token (a platform's token gets 404, as for any unknown path).
 */
export function internalSnapshotRoutes(router: Router, ctx: RegistryContext): void {
  router.get(INTERNAL_BOX_PATH, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    if (!isServiceCaller(authOf(req))) throw errors.notFound('Box', id);
    res.json({ data: await readBoxSnapshot(ctx, id) });
  });
}
