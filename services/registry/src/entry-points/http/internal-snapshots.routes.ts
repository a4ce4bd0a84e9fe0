import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  INTERNAL_BOX_PATH,
  REFERENCED_UPLOADS_PATH,
  referencedUploadsRequestSchema,
} from '@svc/contracts/registry';
import { errors } from '@svc/errors';
import { authOf, isServiceCaller, parseBody, parseParams } from '@svc/service-kit';
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
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json({ data: await readBoxSnapshot(ctx, id) });
  });

  // The gateway's upload purge: which uploads a claim still names (a read; nothing changes).
  router.post(REFERENCED_UPLOADS_PATH, async (req, res) => {
    if (!isServiceCaller(authOf(req))) throw errors.notFound('Route', REFERENCED_UPLOADS_PATH);
    const { platformId, uploadIds } = parseBody(referencedUploadsRequestSchema, req);
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json({ data: { referenced: await ctx.claims.referencedUploads(ctx.db, platformId, uploadIds) } });
  });
}
