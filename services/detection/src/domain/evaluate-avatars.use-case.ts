import type { AvatarEvaluationResponse, AvatarMatch, BoxMatchKeysResponse } from '@svc/contracts/detection';
import { MATCH_KEYS_VERSION } from '@svc/name-matching';
import { confirmFaces, detect, type CheckedPicture } from './check-identity.use-case';
import type { IdentityFilter } from './identity-catalogue';
import { parodyLikelihood } from './parody';
import type { DetectionContext } from './ports';

export interface AvatarToEvaluate {
  ref: string;
  name: string;
  description?: string | undefined;
  imageUrl?: string | undefined;
}

/** The budget's key for avatar evaluations: enforcement's pictures take their turn beside the platforms'. */
const AVATARS = '(avatars)';

/**
 * A picture that cannot be had only leaves the name to match on: an avatar is never refused for
 * it. Its faces are examined as a check's are (docs/spec/contracts.md §15: violations by face).
 */
async function pictureOrNull(ctx: DetectionContext, url: string | undefined): Promise<CheckedPicture | null> {
  if (url === undefined) return null;
  try {
    return await ctx.images.analyse(url, { platformId: AVATARS, timeoutMs: ctx.faceTimeouts.batchMs });
  } catch {
    try {
      return { fingerprint: await ctx.images.fingerprintOf(url), faces: null };
    } catch {
      return null;
    }
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
 *
 * The answer says how far the catalogue had read the projection (`knowledge`): two answers about
 * one avatar are ordered by it, not by when they were asked (a question asked first may be
 * answered with more: its request waited longer, or reached a replica that had read further).
 */
export async function evaluateAvatars(
  ctx: DetectionContext,
  avatars: AvatarToEvaluate[],
  boxId?: string,
): Promise<AvatarEvaluationResponse> {
  if (boxId === undefined || ctx.catalogue.byBoxId(boxId) === undefined) await ctx.refresh();
  // Read before the answers are made: they know at least this much (the catalogue only moves on).
  const knowledge = ctx.knowledge();
  const only = boxId === undefined ? undefined : ctx.catalogue.byBoxId(boxId);
  if (boxId !== undefined && only === undefined)
    return {
      ...(knowledge === undefined ? {} : { knowledge }),
      results: avatars.map((a) => ({ ref: a.ref, match: null })),
    };
  const filter: IdentityFilter =
    boxId === undefined ? (identity) => identity.box !== null : (identity) => identity.box?.boxId === boxId;
  const results = await Promise.all(
    avatars.map(async (avatar) => {
      const picture = await pictureOrNull(ctx, avatar.imageUrl);
      const detectNow = () => detect(ctx, avatar.name, picture, filter, only, avatar.description);
      const found = await confirmFaces(ctx, detectNow(), detectNow);
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
        ...(found.likenessScore === null ? {} : { likenessScore: found.likenessScore }),
      };
      return { ref: avatar.ref, match };
    }),
  );
  return { ...(knowledge === undefined ? {} : { knowledge }), results };
}

/**
 * Enforcement's question before a box's initial scan: the match keys of the box's identity, so that
 * it asks only about avatars that can match the box by name, or carry a picture (issue #34). Read
 * after every projection change committed before it, as a full evaluation is: the box's names as
 * its announcement (detection.box.indexed) left them, or newer; newer names announce the box again,
 * and its scan starts over.
 */
export async function boxMatchKeys(ctx: DetectionContext, boxId: string): Promise<BoxMatchKeysResponse> {
  await ctx.refresh();
  const identity = ctx.catalogue.byBoxId(boxId);
  return {
    version: MATCH_KEYS_VERSION,
    keys: identity === undefined ? [] : ctx.catalogue.matchKeys(identity.claimId),
  };
}
