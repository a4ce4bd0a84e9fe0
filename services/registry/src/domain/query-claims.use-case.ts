import { AppError } from '@svc/errors';
import { visibleClaim } from './access';
import type { Claim, ClaimStatus, EntityType } from './claim';
import type { Caller, Page, RegistryContext } from './ports';

/** A claim the caller may see, and whether it is the owner (who alone sees verification and proofs). */
export async function getClaim(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
): Promise<{ claim: Claim; isOwner: boolean }> {
  const claim = await visibleClaim(ctx, ctx.db, id, caller);
  return { claim, isOwner: claim.ownerPlatformId === caller.platformId };
}

/** Every platform's verified claims and all of the caller's own, newest first. */
export function listClaims(
  ctx: RegistryContext,
  caller: Caller,
  query: Page & {
    status?: ClaimStatus | undefined;
    entityType?: EntityType | undefined;
    q?: string | undefined;
  },
): Promise<{ items: Claim[]; total: number }> {
  return ctx.claims.list(ctx.db, { ...query, viewerPlatformId: caller.platformId });
}

/**
 * The operator's review queue: every tenant's claims of one status, oldest first, each with the
 * other accounts' claims on the same name (issue #32); a platform gets 403.
 */
export async function listClaimsForReview(
  ctx: RegistryContext,
  caller: Caller,
  query: Page & { status: ClaimStatus; q?: string | undefined },
): Promise<{ items: Claim[]; total: number; conflicts: Map<string, Claim[]> }> {
  if (caller.role !== 'operator')
    throw new AppError('FORBIDDEN', 'Only the operator API lists claims for review');
  const page = await ctx.claims.listForReview(ctx.db, query);
  const conflicts = await ctx.claims.conflictsOf(
    ctx.db,
    page.items.map((claim) => claim.id),
  );
  return { ...page, conflicts };
}
