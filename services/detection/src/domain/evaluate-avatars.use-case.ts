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
 *
 * A full evaluation (no `boxId`) first reads every projection change committed before it: the
 * avatar it asks about was committed before the question, so a box this answer does not see was
 * committed, and hence announced (detection.box.indexed), after the avatar, and that box's scan
 * reads the avatar. Answering from a catalogue behind the projection (its refresh failed while the
 * database refused connections, or another replica applied the box) could miss a box whose scan
 * had already passed the avatar: the avatar would never become a violation. When the database
 * cannot be read the question fails (503) and enforcement asks again.
 */
export async function evaluateAvatars(
  ctx: DetectionContext,
  avatars: AvatarToEvaluate[],
  boxId?: string,
): Promise<AvatarEvaluationResponse> {
  if (boxId === undefined || ctx.catalogue.byBoxId(boxId) === undefined) await ctx.refresh();
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
