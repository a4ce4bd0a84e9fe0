import {
  arrangeImages,
  checkName,
  checkVariations,
  type Claim,
  type EntityType,
  type ImageInput,
} from './claim';
import type { Caller, RegistryContext } from './ports';
import { claimConflictEvent, claimEvent } from './registry-events';

export interface CreateClaimInput {
  name: string;
  variations?: string[] | undefined;
  entityType: EntityType;
  referenceImages: ImageInput[];
}

export interface CreatedClaim {
  claim: Claim;
  nextStep: { action: string; url: string };
}

/** A platform claims an identity: pending, BRONZE, and the page where verification continues. */
export async function createClaim(
  ctx: RegistryContext,
  caller: Caller,
  input: CreateClaimInput,
): Promise<CreatedClaim> {
  const now = ctx.clock.now();
  const claim: Claim = {
    id: ctx.newId('claim'),
    ownerPlatformId: caller.platformId,
    name: checkName(input.name),
    variations: checkVariations(input.variations ?? []),
    entityType: input.entityType,
    status: 'pending',
    verificationTier: 'BRONZE',
    verification: null,
    proofs: [],
    referenceImages: arrangeImages(input.referenceImages, [], () => ctx.newId('img')),
    rejectionReason: null,
    createdAt: now,
    updatedAt: now,
    verifiedAt: null,
    boxId: null,
  };
  await ctx.db.transaction(async (tx) => {
    await ctx.claims.insert(tx, claim);
    await ctx.outbox(tx, claimEvent('created', claim, now));
    // Another account already protects this name: its owner is told (issue #32), in the same
    // transaction, so that no conflict goes untold and none is told twice.
    const met = (await ctx.claims.conflictsOf(tx, [claim.id])).get(claim.id) ?? [];
    const told = met.filter((other) => other.status === 'verified');
    if (told.length > 0) {
      await ctx.outbox(tx, ...told.map((existing) => claimConflictEvent(claim, existing, now)));
    }
  });
  ctx.eventsCommitted();
  return {
    claim,
    nextStep: {
      action: 'verify_identity',
      url: `${ctx.verificationBaseUrl.replace(/\/+$/, '')}/claims/${encodeURIComponent(claim.id)}`,
    },
  };
}
