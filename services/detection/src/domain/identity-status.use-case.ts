import { AppError } from '@svc/errors';
import type { IndexedIdentity } from './identity';
import type { DetectionContext } from './ports';

/** GET /identity/status/{id}: a verified identity by claim id or box id; NOT_FOUND otherwise. */
export function identityStatus(ctx: Pick<DetectionContext, 'catalogue'>, id: string): IndexedIdentity {
  const identity = ctx.catalogue.byClaimId(id) ?? ctx.catalogue.byBoxId(id);
  if (!identity) throw new AppError('NOT_FOUND', `No verified identity ${id}`);
  return identity;
}
