import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import { licensingOperations as ops, statusListIdParamSchema } from '@svc/contracts/licensing';
import { errors } from '@svc/errors';
import { parseParams, respond } from '@svc/service-kit';
import { getCredential } from '../../domain/credentials';
import type { LicensingContext } from '../../domain/ports';
import { jwksOf, type KeyRing } from '../../domain/signing-keys';
import type { StatusListPublisher } from '../../domain/status-list';
import { callerOf } from './caller';

/**
 * Proofs of a license (docs/spec/contracts.md §16, docs/adr/0029): its credential for the licensee and the box
 * owner; the status list and the key set for anyone (the gateway forwards them without a key, so
 * neither reads a platform from the request).
 */
export function credentialRoutes(
  router: Router,
  ctx: LicensingContext,
  parts: { statusLists: StatusListPublisher; keys: KeyRing },
): void {
  router.get(ops.getLicenseCredential.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const credential = await getCredential(ctx, callerOf(req), id);
    respond(res, ops.getLicenseCredential, 200, {
      data: { credential: credential.credential, expiresAt: credential.expiresAt.toISOString() },
    });
  });

  router.get(ops.getStatusList.path, async (req, res) => {
    const { id } = parseParams(statusListIdParamSchema, req);
    const jwt = await parts.statusLists.jwt(id);
    if (jwt === null) throw errors.notFound('Status list', String(id));
    res.set('Cache-Control', 'public, max-age=30').type('application/statuslist+jwt').send(jwt);
  });

  router.get(ops.getJwks.path, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300');
    respond(res, ops.getJwks, 200, jwksOf(parts.keys, ctx.clock.now()));
  });
}
