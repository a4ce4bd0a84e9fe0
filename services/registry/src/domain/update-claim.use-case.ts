import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import { ownedClaim } from './access';
import {
  arrangeImages,
  checkVariations,
  withImage,
  withVariation,
  type Claim,
  type ImageInput,
} from './claim';
import type { Caller, RegistryContext } from './ports';
import { forgetFacesNow } from './forget-faces';
import { boxEvent, claimEvent } from './registry-events';

/**
 * Applies a change to a claim the caller owns. A change that alters nothing publishes nothing;
 * otherwise `registry.claim.updated`, and `registry.box.updated` when the claim is boxed (the box
 * event carries the names and images detection matches on).
 */
async function changeClaim(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  change: (claim: Claim) => Pick<Claim, 'variations' | 'referenceImages'>,
): Promise<Claim> {
  const result = await ctx.db.transaction(async (tx) => {
    const claim = await ownedClaim(ctx, tx, id, caller);
    const changed = change(claim);
    if (
      JSON.stringify(changed.variations) === JSON.stringify(claim.variations) &&
      JSON.stringify(changed.referenceImages) === JSON.stringify(claim.referenceImages)
    ) {
      return { claim, published: false, removedImageIds: [] };
    }
    const now = ctx.clock.now();
    const updated: Claim = { ...claim, ...changed, updatedAt: now };
    await ctx.claims.update(tx, updated);
    await ctx.outbox(tx, claimEvent('updated', updated, now));
    await publishBoxOf(ctx, tx, updated, now);
    // Images gone from the claim (or whose url changed): their faces are forgotten before the answer.
    const kept = new Set(changed.referenceImages.map((image) => `${image.id} ${image.url}`));
    const removedImageIds = claim.referenceImages
      .filter((image) => !kept.has(`${image.id} ${image.url}`))
      .map((image) => image.id);
    return { claim: updated, published: true, removedImageIds };
  });
  if (result.published) ctx.eventsCommitted();
  if (result.removedImageIds.length > 0) {
    await forgetFacesNow(ctx, { claimId: result.claim.id, imageIds: result.removedImageIds });
  }
  return result.claim;
}

/** The claim's box, re-published with the claim's current names, tier and images. */
export async function publishBoxOf(
  ctx: RegistryContext,
  tx: Queryable,
  claim: Claim,
  now: Date,
): Promise<void> {
  if (claim.boxId === null) return;
  const box = await ctx.boxes.find(tx, claim.boxId);
  if (box === null) throw errors.internal(new Error(`box ${claim.boxId} of claim ${claim.id} is missing`));
  await ctx.outbox(
    tx,
    boxEvent(
      'updated',
      { ...box, identityName: claim.name },
      claim,
      await ctx.entityVersion(tx, claim.id),
      now,
    ),
  );
}

export interface UpdateClaimInput {
  variations?: string[] | undefined;
  referenceImages?: ImageInput[] | undefined;
}

/** PATCH: replaces the variations and/or the reference images. */
export function updateClaim(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  input: UpdateClaimInput,
): Promise<Claim> {
  return changeClaim(ctx, caller, id, (claim) => ({
    variations: input.variations === undefined ? claim.variations : checkVariations(input.variations),
    referenceImages:
      input.referenceImages === undefined
        ? claim.referenceImages
        : arrangeImages(input.referenceImages, claim.referenceImages, () => ctx.newId('img')),
  }));
}

/** Adds a variation; one already there (ignoring case) changes nothing. */
export function addClaimVariation(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  variation: string,
): Promise<Claim> {
  return changeClaim(ctx, caller, id, (claim) => ({
    variations: withVariation(claim.variations, variation),
    referenceImages: claim.referenceImages,
  }));
}

/** Adds a reference image; a new primary demotes the old one. */
export function addClaimImage(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  image: ImageInput,
): Promise<Claim> {
  return changeClaim(ctx, caller, id, (claim) => ({
    variations: claim.variations,
    referenceImages: withImage(claim.referenceImages, image, () => ctx.newId('img')),
  }));
}
