import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import { INTERNAL_LICENSE_PATH } from '@svc/contracts/licensing';
import { errors } from '@svc/errors';
import { authOf, isServiceCaller, parseParams } from '@svc/service-kit';
import type { LicensingContext } from '../../domain/ports';
import { readLicenseSnapshot } from '../../domain/read-license-snapshot.use-case';

/**
 * Read-through for other services (ADR 0010): not a public operation, answered only to a
 * service's own internal token (a platform's token gets 404, as for any unknown path).
 */
export function internalSnapshotRoutes(router: Router, ctx: LicensingContext): void {
  router.get(INTERNAL_LICENSE_PATH, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    if (!isServiceCaller(authOf(req))) throw errors.notFound('License', id);
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json({ data: await readLicenseSnapshot(ctx, id) });
  });
}
