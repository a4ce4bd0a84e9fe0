import type { AvatarEvaluationResponse, AvatarMatch } from '@svc/contracts';
import type { ImageFingerprint } from '@svc/image-fingerprint';
import { detect } from './check-identity.use-case';
import type { IdentityFilter } from './identity-catalogue';
import { parodyLikelihood } from './parody';
import type { DetectionContext } from './ports';

export interface AvatarToEvaluate {
  ref: string;
  name: string;
  description?: string | undefined;
  imageUrl?: string | undefined;
}

/** A picture that cannot be had only leaves the name to match on: an avatar is never refused for it. */
async function fingerprintOrNull(
  ctx: DetectionContext,
  url: string | undefined,
): Promise<ImageFingerprint | null> {
  if (url === undefined) return null;
  try {
    return await ctx.images.fingerprintOf(url);
  } catch {
    return null;
  }
}

/**
 * Enforcement's question (docs/spec/architecture.md): which box, if any, does each avatar match? Only
 * boxed identities count, each at its box's threshold; `boxId` limits the search to one box (a new
 * box's initial scan), read from the database first if this replica has not seen it yet.
 */
export async function evaluateAvatars(
  ctx: DetectionContext,
  avatars: AvatarToEvaluate[],
  boxId?: string,
): Promise<AvatarEvaluationResponse> {
  if (boxId !== undefined && ctx.catalogue.byBoxId(boxId) === undefined) await ctx.refresh();
  const only = boxId === undefined ? undefined : ctx.catalogue.byBoxId(boxId);
  if (boxId !== undefined && only === undefined)
    return { results: avatars.map((a) => ({ ref: a.ref, match: null })) };
  const filter: IdentityFilter =
    boxId === undefined ? (identity) => identity.box !== null : (identity) => identity.box?.boxId === boxId;
  const results = await Promise.all(
    avatars.map(async (avatar) => {
      const fingerprint = await fingerprintOrNull(ctx, avatar.imageUrl);
      const found = detect(ctx, avatar.name, fingerprint, filter, only, avatar.description);
      const box = found.identity?.box;
      if (!found.identity || !box) return { ref: avatar.ref, match: null };
      const match: AvatarMatch = {
        boxId: box.boxId,
        claimId: found.identity.claimId,
        identityName: found.identity.name,
        ownerPlatformId: found.identity.ownerPlatformId,
        policy: box.policy,
        enforcement: box.enforcement,
        policyConfig: box.policyConfig,
        confidence: found.confidence,
        layer: found.layer,
        classification: found.classification,
        matchedVariations: found.matchedVariations,
        imageMatchScore: found.imageMatchScore,
        parodyLikelihood: parodyLikelihood(avatar.description),
      };
      return { ref: avatar.ref, match };
    }),
  );
  return { results };
}
