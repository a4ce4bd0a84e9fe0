import { readName } from '@svc/contracts';
import { AppError, isAppError } from '@svc/errors';
import type { ImageFingerprint } from '@svc/image-fingerprint';
import { decideAction, type Action } from './action';
import type { IdentityFilter, ImageHit } from './identity-catalogue';
import type { IndexedIdentity } from './identity';
import { httpUrlProblem } from '@svc/fetch-guard';
import { CLASSIFICATION_OF_LAYER } from './name-matching/match-result';
import { parodyLikelihood } from './parody';
import type { Caller, DetectionContext } from './ports';

export type Layer = 0 | 1 | 2 | 3 | 4 | 5;
export type Classification =
  'NO_MATCH' | 'EXACT_MATCH' | 'VARIATION_MATCH' | 'FUZZY_MATCH' | 'PHONETIC_MATCH' | 'IMAGE_MATCH';

/** What the matching found for one name (and picture). */
export interface Detection {
  identity: IndexedIdentity | null;
  confidence: number;
  layer: Layer;
  classification: Classification;
  matchedVariations: string[];
  imageMatchScore: number | null;
  /** The best name score of any candidate, matched or not (docs/spec/contracts.md §13: near misses show). */
  bestScore: number;
}

export interface CheckInput {
  name: string;
  imageUrl?: string | undefined;
  description?: string | undefined;
  context?: string | undefined;
}

export interface CheckOutcome extends Detection {
  parodyLikelihood: number;
  action: Action;
  /** Batch items only: the picture could not be checked, the result stands on the name. */
  imageError?: AppError;
}

const NO_MATCH: Detection = {
  identity: null,
  confidence: 0,
  layer: 0,
  classification: 'NO_MATCH',
  matchedVariations: [],
  imageMatchScore: null,
  bestScore: 0,
};

/** The name, trimmed; INVALID_NAME (400) when it is not a name (docs/spec/contracts.md §2). */
export function checkedName(value: string, field = 'name'): string {
  const read = readName(value);
  if ('problem' in read) {
    throw new AppError('INVALID_NAME', `${field}: ${read.problem}`, {
      details: { field, reason: read.problem },
    });
  }
  return read.name;
}

/** INVALID_IMAGE_URL (422) unless the value is an absolute http(s) URL (the fetch guard checks the rest). */
export function checkImageUrl(value: string, field = 'imageUrl'): string {
  const problem = httpUrlProblem(value);
  if (problem !== null) {
    throw new AppError('INVALID_IMAGE_URL', `${field}: ${problem}`, { details: { field, reason: problem } });
  }
  return value;
}

const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

/**
 * Name and picture together. The name's match and the picture's match each suffice (a protected
 * name with an unrelated picture still matches; a protected picture under another name does too).
 * When both point at the same identity the evidence adds up (1 - (1-a)(1-b)); when they point at
 * different ones the more confident wins, the name on a tie. `only` limits the search to one identity.
 */
export function detect(
  ctx: Pick<DetectionContext, 'catalogue'>,
  name: string,
  fingerprint: ImageFingerprint | null,
  filter?: IdentityFilter,
  only?: IndexedIdentity,
  description?: string,
): Detection {
  const { catalogue } = ctx;
  const byName = catalogue.searchName(name, filter);
  // A protected name written out in the description counts too (issue 17), the name first on a tie.
  const byDescription =
    description === undefined || description.trim() === ''
      ? null
      : catalogue.searchName(description, filter, 'description');
  const nameHit =
    byDescription?.hit && (!byName.hit || byDescription.hit.match.confidence > byName.hit.match.confidence)
      ? byDescription.hit
      : byName.hit;
  const bestScore = Math.max(byName.bestScore, byDescription?.bestScore ?? 0);
  let imageHit: ImageHit | null = null;
  if (fingerprint && only) {
    // One identity (a box's initial scan): compare with its own references, not the best overall.
    const score = catalogue.imageScore(only.claimId, fingerprint);
    if (score && catalogue.isImageMatch(score.similarity)) imageHit = { identity: only, ...score };
  } else if (fingerprint) imageHit = catalogue.matchImage(fingerprint, filter);
  if (nameHit) {
    const score = fingerprint ? catalogue.imageScore(nameHit.identity.claimId, fingerprint) : null;
    const sameIdentity = imageHit !== null && imageHit.identity.claimId === nameHit.identity.claimId;
    if (imageHit === null || sameIdentity || nameHit.match.confidence >= imageHit.similarity) {
      const nameConfidence = nameHit.match.confidence;
      const confidence =
        score !== null && catalogue.isImageMatch(score.similarity)
          ? round4(1 - (1 - nameConfidence) * (1 - score.similarity))
          : nameConfidence;
      return {
        identity: nameHit.identity,
        confidence,
        layer: nameHit.match.layer,
        classification: CLASSIFICATION_OF_LAYER[nameHit.match.layer],
        matchedVariations: [nameHit.match.matchedName],
        imageMatchScore: score === null ? null : round4(score.similarity),
        bestScore: Math.max(bestScore, nameConfidence),
      };
    }
  }
  if (imageHit) {
    return {
      identity: imageHit.identity,
      confidence: round4(imageHit.similarity),
      layer: 5,
      classification: 'IMAGE_MATCH',
      matchedVariations: [],
      imageMatchScore: round4(imageHit.similarity),
      bestScore,
    };
  }
  return { ...NO_MATCH, bestScore };
}

/** The action for what was detected, for this caller (docs/spec/contracts.md §13). */
function outcomeOf(
  caller: Caller,
  detection: Detection,
  input: CheckInput,
  activeLicenseTiers: readonly string[],
): CheckOutcome {
  const parody = parodyLikelihood(input.description, input.context);
  const action = decideAction(detection.identity, {
    context: input.context,
    parodyLikelihood: parody,
    platformDomain: caller.platformDomain,
    activeLicenseTiers,
  });
  return { ...detection, parodyLikelihood: parody, action };
}

/** The box's id when the caller's licenses decide the action (a LICENSE box), else null. */
function licensedBoxOf(detection: Detection): string | null {
  const box = detection.identity?.box;
  return box?.policy === 'LICENSE' ? box.boxId : null;
}

/** POST /identity/check: is this a protected identity, and what must happen? */
export async function checkIdentity(
  ctx: DetectionContext,
  caller: Caller,
  input: CheckInput,
): Promise<CheckOutcome> {
  const name = checkedName(input.name);
  const imageUrl = input.imageUrl === undefined ? undefined : checkImageUrl(input.imageUrl);
  const fingerprint = imageUrl === undefined ? null : await ctx.images.fingerprintOf(imageUrl);
  const detection = detect(ctx, name, fingerprint, undefined, undefined, input.description);
  const boxId = licensedBoxOf(detection);
  const activeLicenseTiers =
    boxId === null
      ? []
      : await ctx.licenses.activeLicenseTiers(ctx.db, caller.platformId, boxId, ctx.clock.now());
  return outcomeOf(caller, detection, input, activeLicenseTiers);
}

/** Pictures of one batch fetched at once. */
const BATCH_FETCH_CONCURRENCY = 16;

async function mapLimited<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * POST /identity/check/batch. Every name and URL is checked first (one bad item refuses the
 * batch, with its index); a picture that cannot be fetched only marks its own item.
 */
export async function checkIdentities(
  ctx: DetectionContext,
  caller: Caller,
  inputs: CheckInput[],
  fields: { name: string; imageUrl: string } = { name: 'name', imageUrl: 'imageUrl' },
): Promise<CheckOutcome[]> {
  const checked = inputs.map((input, index) => ({
    ...input,
    name: checkedName(input.name, `identities.${index}.${fields.name}`),
    imageUrl:
      input.imageUrl === undefined
        ? undefined
        : checkImageUrl(input.imageUrl, `identities.${index}.${fields.imageUrl}`),
  }));
  const detected = await mapLimited(checked, BATCH_FETCH_CONCURRENCY, async (input) => {
    let fingerprint: ImageFingerprint | null = null;
    let imageError: AppError | undefined;
    if (input.imageUrl !== undefined) {
      try {
        fingerprint = await ctx.images.fingerprintOf(input.imageUrl);
      } catch (err) {
        if (!isAppError(err)) throw err;
        imageError = err;
      }
    }
    return {
      input,
      imageError,
      detection: detect(ctx, input.name, fingerprint, undefined, undefined, input.description),
    };
  });
  // The caller's licenses on every LICENSE box the batch met: one query, not one per item.
  const licensedBoxes = [...new Set(detected.map((d) => licensedBoxOf(d.detection)))].filter(
    (boxId): boxId is string => boxId !== null,
  );
  const tiers =
    licensedBoxes.length === 0
      ? new Map<string, string[]>()
      : await ctx.licenses.activeLicenseTiersByBox(ctx.db, caller.platformId, licensedBoxes, ctx.clock.now());
  return detected.map(({ input, imageError, detection }) => {
    const boxId = licensedBoxOf(detection);
    const outcome = outcomeOf(caller, detection, input, boxId === null ? [] : (tiers.get(boxId) ?? []));
    return imageError === undefined ? outcome : { ...outcome, imageError };
  });
}
