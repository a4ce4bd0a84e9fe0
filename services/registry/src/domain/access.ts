import { AppError, errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { Box } from './box';
import { isVisibleTo, type Claim, type ClaimStatus } from './claim';
import type { Caller, RegistryContext } from './ports';

// Ownership (docs/spec/contracts.md §6): another platform's invisible resource is 404 (its existence is
// not revealed); another platform's visible (verified) one may be read, and changing it is 403.

/** A claim the caller may read. */
export async function visibleClaim(
  ctx: RegistryContext,
  q: Queryable,
  id: string,
  caller: Caller,
): Promise<Claim> {
  const claim = await ctx.claims.find(q, id);
  if (claim === null || !isVisibleTo(claim, caller.platformId)) throw errors.notFound('Claim', id);
  return claim;
}

/** A claim the caller owns, locked for a change. */
export async function ownedClaim(
  ctx: RegistryContext,
  tx: Queryable,
  id: string,
  caller: Caller,
): Promise<Claim> {
  const claim = await ctx.claims.find(tx, id, { lock: true });
  if (claim === null || !isVisibleTo(claim, caller.platformId)) throw errors.notFound('Claim', id);
  if (claim.ownerPlatformId !== caller.platformId) {
    throw new AppError('FORBIDDEN', `Claim ${id} belongs to another platform`);
  }
  return claim;
}

function boxVisible(box: Box & { claimStatus: ClaimStatus }, platformId: string): boolean {
  return isVisibleTo({ ownerPlatformId: box.ownerPlatformId, status: box.claimStatus }, platformId);
}

/** A box the caller may read. */
export async function visibleBox(
  ctx: RegistryContext,
  q: Queryable,
  id: string,
  caller: Caller,
): Promise<Box> {
  const box = await ctx.boxes.find(q, id);
  if (box === null || !boxVisible(box, caller.platformId)) throw errors.notFound('Box', id);
  return box;
}

/** A box the caller owns, locked for a change. */
export async function ownedBox(
  ctx: RegistryContext,
  tx: Queryable,
  id: string,
  caller: Caller,
): Promise<Box> {
  const box = await ctx.boxes.find(tx, id, { lock: true });
  if (box === null || !boxVisible(box, caller.platformId)) throw errors.notFound('Box', id);
  if (box.ownerPlatformId !== caller.platformId) {
    throw new AppError('FORBIDDEN', `Box ${id} belongs to another platform`);
  }
  return box;
}

/** Statistics are the owner's alone: anyone else gets 404. */
export async function boxForStatistics(
  ctx: RegistryContext,
  q: Queryable,
  id: string,
  caller: Caller,
): Promise<Box> {
  const box = await ctx.boxes.find(q, id);
  if (box === null || box.ownerPlatformId !== caller.platformId) throw errors.notFound('Box', id);
  return box;
}
