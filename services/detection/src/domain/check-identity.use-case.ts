import { readName, type LikenessBand, type MatchLayer } from '@svc/contracts/common';
import { AppError, isAppError } from '@svc/errors';
import { httpUrlProblem } from '@svc/fetch-guard';
import type { ImageFingerprint } from '@svc/image-fingerprint';
import { decideAction, type Action } from './action';
import { bandOf, judgedDistanceOf, likenessScoreOf, reviewRadiusOf } from './face-matching/bands';
import type { FaceHit, IdentityFilter } from './identity-catalogue';
import type { IndexedIdentity } from './identity';
import { parodyLikelihood } from './parody';
import type { Caller, DetectionContext, PictureAnalysis } from './ports';

export type Layer = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export type Classification =
  | 'NO_MATCH'
  | 'EXACT_MATCH'
  | 'VARIATION_MATCH'
  | 'FUZZY_MATCH'
  | 'PHONETIC_MATCH'
  | 'IMAGE_MATCH'
  | 'FACE_MATCH';

/** What the faces of a checked picture showed (docs/spec/contracts.md §15). */
export interface Likeness {
  score: number;
  band: LikenessBand;
  faces: number;
}

/** One identity that the name, the picture or a face matched, with how. */
export interface Candidate {
  identity: IndexedIdentity;
  confidence: number;
  layer: Layer;
  classification: Classification;
  matchLayer: MatchLayer;
  matchedVariations: string[];
  imageMatchScore: number | null;
  /** The face's likeness when a face matched this identity. */
  likenessScore: number | null;
}

/** What the matching found for one name (and picture). */
export interface Detection {
  identity: IndexedIdentity | null;
  confidence: number;
  layer: Layer;
  classification: Classification;
  matchLayer: MatchLayer | null;
  matchedVariations: string[];
  imageMatchScore: number | null;
  likenessScore: number | null;
  /** The best score of any candidate, matched or not (docs/spec/contracts.md §13, §15: near misses show). */
  bestScore: number;
  /** Present whenever a picture was checked. */
  likeness: Likeness | null;
  /** Every identity matched, the chosen one first once `choose` has run. */
  candidates: Candidate[];
  /** The enrolled faces the likeness rests on (band match or review): confirmed before an answer. */
  faceSightings: { claimId: string; imageId: string }[];
}

export interface CheckInput {
  name: string;
  imageUrl?: string | undefined;
  description?: string | undefined;
  context?: string | undefined;
}

/** Another identity that matched too, not the one chosen (docs/spec/contracts.md §15). */
export interface OtherMatch {
  claimId: string;
  boxId: string | null;
  layer: MatchLayer;
  score: number;
}

export interface CheckOutcome extends Detection {
  parodyLikelihood: number;
  action: Action;
  otherMatches: OtherMatch[];
  /** Batch items only: the picture could not be checked, the result stands on the name. */
  imageError?: ItemImageError;
}

/** What a batch item's picture can fail with and the item still answer (the batch item's `error`). */
export const ITEM_IMAGE_ERROR_CODES = ['INVALID_IMAGE_URL', 'IMAGE_TOO_LARGE'] as const;
export interface ItemImageError {
  code: (typeof ITEM_IMAGE_ERROR_CODES)[number];
  message: string;
}

function isItemImageError(err: AppError): err is AppError & ItemImageError {
  return (ITEM_IMAGE_ERROR_CODES as readonly string[]).includes(err.code);
}

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

const CLASSIFICATION_OF_LAYER: Record<Layer, Classification> = {
  0: 'NO_MATCH',
  1: 'EXACT_MATCH',
  2: 'VARIATION_MATCH',
  3: 'FUZZY_MATCH',
  4: 'PHONETIC_MATCH',
  5: 'IMAGE_MATCH',
  6: 'FACE_MATCH',
};

/** What a checked picture brings to the detection: its fingerprint, its faces if examined. */
export interface CheckedPicture {
  fingerprint: ImageFingerprint;
  /** null: the faces were not examined (in time): the likeness band is `unavailable`. */
  faces: { descriptors: Float32Array[] } | null;
}

interface Evidence {
  identity: IndexedIdentity;
  name?: { confidence: number; layer: Layer; matchedName: string };
  image?: number;
  face?: number;
}

const BAND_ORDER = ['match', 'review', 'none'] as const;

/** The faces' verdict, and the identities a face matched (or reviewed on a STRICT box). */
function faceEvidence(
  ctx: Pick<DetectionContext, 'catalogue'>,
  faces: { descriptors: Float32Array[] } | null,
  filter: IdentityFilter | undefined,
  only: IndexedIdentity | undefined,
): {
  likeness: Likeness;
  hits: { hit: FaceHit; score: number }[];
  sightings: { claimId: string; imageId: string }[];
} {
  if (faces === null)
    return { likeness: { score: 0, band: 'unavailable', faces: 0 }, hits: [], sightings: [] };
  const gallery = ctx.catalogue.faceCount;
  const found = ctx.catalogue
    .searchFaces(faces.descriptors, reviewRadiusOf(gallery), filter, only?.claimId)
    .map((hit) => ({
      hit,
      band: bandOf(hit, gallery),
      score: round4(likenessScoreOf(judgedDistanceOf(hit))),
    }))
    .sort((a, b) => BAND_ORDER.indexOf(a.band) - BAND_ORDER.indexOf(b.band) || b.score - a.score);
  const closest = found[0];
  const likeness: Likeness = {
    score: closest === undefined || closest.band === 'none' ? 0 : closest.score,
    band: closest === undefined ? 'none' : closest.band,
    faces: faces.descriptors.length,
  };
  const hits = found
    // The review band acts as a match on a STRICT box only (docs/spec/contracts.md §15).
    .filter(
      ({ hit, band }) =>
        band === 'match' || (band === 'review' && hit.identity.box?.enforcement === 'STRICT'),
    )
    .map(({ hit, score }) => ({ hit, score }));
  const sightings = found
    .filter(({ band }) => band !== 'none')
    .map(({ hit }) => ({ claimId: hit.identity.claimId, imageId: hit.imageId }));
  return { likeness, hits, sightings };
}

/** One identity's evidence as a candidate: the evidence adds up (1 - Π(1 - s)); the strongest names the layer. */
function candidateOf(
  ctx: Pick<DetectionContext, 'catalogue'>,
  evidence: Evidence,
  fingerprint: ImageFingerprint | null,
): Candidate {
  const scores: { layer: MatchLayer; score: number }[] = [];
  if (evidence.name) scores.push({ layer: 'name', score: evidence.name.confidence });
  if (evidence.image !== undefined) scores.push({ layer: 'image', score: evidence.image });
  if (evidence.face !== undefined) scores.push({ layer: 'face', score: evidence.face });
  // The strongest names the layer; the name first on a tie, then the picture.
  const strongest = scores.reduce((best, s) => (s.score > best.score ? s : best));
  const confidence = round4(1 - scores.reduce((rest, s) => rest * (1 - s.score), 1));
  const layer: Layer =
    strongest.layer === 'name' && evidence.name ? evidence.name.layer : strongest.layer === 'image' ? 5 : 6;
  const imageScore = fingerprint ? ctx.catalogue.imageScore(evidence.identity.claimId, fingerprint) : null;
  return {
    identity: evidence.identity,
    confidence: scores.length === 1 ? strongest.score : confidence,
    layer,
    classification: CLASSIFICATION_OF_LAYER[layer],
    matchLayer: strongest.layer,
    matchedVariations: evidence.name ? [evidence.name.matchedName] : [],
    imageMatchScore: imageScore === null ? null : round4(imageScore.similarity),
    likenessScore: evidence.face ?? null,
  };
}

/**
 * Name and picture together (docs/spec/contracts.md §13, §15). The name's match, the same picture
 * (a reference image's fingerprint) and the same face (an enrolled face in another picture) each
 * suffice; evidence for one identity adds up. The candidates are ordered by confidence, the name
 * first on a tie; a check then chooses among them by action (`choose`). `only` limits the search
 * to one identity (a box's initial scan).
 */
export function detect(
  ctx: Pick<DetectionContext, 'catalogue'>,
  name: string,
  picture: CheckedPicture | null,
  filter?: IdentityFilter,
  only?: IndexedIdentity,
  description?: string,
): Detection {
  const { catalogue } = ctx;
  // One identity (a box's initial scan): only its names are scored, not the whole catalogue's.
  const byName = catalogue.searchName(name, filter, 'name', only);
  // A protected name written out in the description counts too (issue 17), the name first on a tie.
  const byDescription =
    description === undefined || description.trim() === ''
      ? null
      : catalogue.searchName(description, filter, 'description', only);
  const nameHit =
    byDescription?.hit && (!byName.hit || byDescription.hit.match.confidence > byName.hit.match.confidence)
      ? byDescription.hit
      : byName.hit;
  let bestScore = Math.max(byName.bestScore, byDescription?.bestScore ?? 0);
  const evidence = new Map<string, Evidence>();
  const evidenceOf = (identity: IndexedIdentity): Evidence => {
    let found = evidence.get(identity.claimId);
    if (found === undefined) {
      found = { identity };
      evidence.set(identity.claimId, found);
    }
    return found;
  };
  if (nameHit) {
    evidenceOf(nameHit.identity).name = {
      confidence: nameHit.match.confidence,
      layer: nameHit.match.layer,
      matchedName: nameHit.match.matchedName,
    };
  }
  const fingerprint = picture?.fingerprint ?? null;
  if (fingerprint && only) {
    // One identity (a box's initial scan): compare with its own references, not the best overall.
    const score = catalogue.imageScore(only.claimId, fingerprint);
    if (score && catalogue.isImageMatch(score.similarity)) evidenceOf(only).image = round4(score.similarity);
  } else if (fingerprint) {
    const imageHit = catalogue.matchImage(fingerprint, filter);
    if (imageHit) evidenceOf(imageHit.identity).image = round4(imageHit.similarity);
  }
  // The name's identity's own picture counts for it even when another identity's is closer.
  if (nameHit && fingerprint) {
    const own = catalogue.imageScore(nameHit.identity.claimId, fingerprint);
    if (own && catalogue.isImageMatch(own.similarity))
      evidenceOf(nameHit.identity).image ??= round4(own.similarity);
  }
  let likeness: Likeness | null = null;
  let faceSightings: Detection['faceSightings'] = [];
  if (picture) {
    const faces = faceEvidence(ctx, picture.faces, filter, only);
    likeness = faces.likeness;
    faceSightings = faces.sightings;
    for (const { hit, score } of faces.hits) evidenceOf(hit.identity).face = score;
    bestScore = Math.max(bestScore, likeness.score);
  }
  const candidates = [...evidence.values()]
    .map((e) => candidateOf(ctx, e, fingerprint))
    .sort((a, b) => b.confidence - a.confidence || a.layer - b.layer);
  const chosen = candidates[0];
  return {
    ...(chosen === undefined
      ? {
          identity: null,
          confidence: 0,
          layer: 0,
          classification: 'NO_MATCH',
          matchLayer: null,
          matchedVariations: [],
          imageMatchScore: null,
          likenessScore: null,
        }
      : { ...chosen }),
    bestScore: Math.max(bestScore, chosen?.confidence ?? 0),
    likeness,
    candidates,
    faceSightings,
  } as Detection;
}

/** Most restrictive first (docs/spec/contracts.md §15). */
const RESTRICTIVENESS: readonly Action[] = [
  'BLOCK',
  'REQUIRE_LICENSE',
  'VERIFY_COMMERCIAL',
  'REVIEW_PARODY',
  'TRACK_REVENUE',
  'ALLOW',
];

/**
 * When the name, the picture and a face point to different identities, the one whose action is
 * the most restrictive is the match (then the more confident); the others are `otherMatches`.
 */
function choose(
  detection: Detection,
  actionOf: (candidate: Candidate | null) => Action,
): { detection: Detection; action: Action; otherMatches: OtherMatch[] } {
  const ranked = detection.candidates
    .map((candidate, order) => ({ candidate, order, action: actionOf(candidate) }))
    .sort(
      (a, b) => RESTRICTIVENESS.indexOf(a.action) - RESTRICTIVENESS.indexOf(b.action) || a.order - b.order,
    );
  const first = ranked[0];
  if (first === undefined) return { detection, action: actionOf(null), otherMatches: [] };
  const others = ranked.slice(1).map(({ candidate }) => ({
    claimId: candidate.identity.claimId,
    boxId: candidate.identity.box?.boxId ?? null,
    layer: candidate.matchLayer,
    score: candidate.confidence,
  }));
  return {
    detection: { ...detection, ...first.candidate, candidates: ranked.map((r) => r.candidate) },
    action: first.action,
    otherMatches: others,
  };
}

/** The box's id when the caller's licenses decide the action (a LICENSE box), else null. */
function licensedBoxOf(identity: IndexedIdentity | null | undefined): string | null {
  const box = identity?.box;
  return box?.policy === 'LICENSE' ? box.boxId : null;
}

/**
 * Drops face evidence of faces deleted since this replica's index last read the projection:
 * a face that matched is confirmed in the database before the answer (docs/spec/contracts.md §15:
 * no check answered after a deletion's response matches it).
 */
export async function confirmFaces(
  ctx: DetectionContext,
  detection: Detection,
  again: () => Detection,
): Promise<Detection> {
  const sightings = detection.faceSightings;
  if (sightings.length === 0) return detection;
  const live = await ctx.faces.enrolledFaces(
    ctx.db,
    sightings.map((seen) => seen.imageId),
  );
  const gone = sightings.filter((seen) => !live.has(seen.imageId));
  if (gone.length === 0) return detection;
  // Some face is gone: this replica forgets those identities' faces and detects again.
  ctx.catalogue.forgetFaces([...new Set(gone.map((seen) => seen.claimId))]);
  return again();
}

/** Fingerprint and faces of a checked picture, under the caller's budget. */
async function pictureOf(
  ctx: DetectionContext,
  caller: Caller,
  url: string,
  timeoutMs: number,
  fetchTimeoutMs: number,
  totalMs?: number,
  whenBusy?: 'refuse' | 'without_faces',
): Promise<PictureAnalysis> {
  return ctx.images.analyse(url, {
    platformId: caller.platformId,
    timeoutMs,
    fetchTimeoutMs,
    ...(totalMs === undefined ? {} : { totalMs }),
    ...(whenBusy === undefined ? {} : { whenBusy }),
  });
}

function outcomeOf(
  caller: Caller,
  detection: Detection,
  input: CheckInput,
  tiersOf: (boxId: string) => readonly string[],
): CheckOutcome {
  const parody = parodyLikelihood(input.description, input.context);
  const actionOf = (candidate: Candidate | null): Action => {
    const identity = candidate?.identity ?? null;
    const boxId = licensedBoxOf(identity);
    return decideAction(identity, {
      context: input.context,
      parodyLikelihood: parody,
      platformDomain: caller.platformDomain,
      activeLicenseTiers: boxId === null ? [] : tiersOf(boxId),
    });
  };
  const chosen = choose(detection, actionOf);
  return {
    ...chosen.detection,
    parodyLikelihood: parody,
    action: chosen.action,
    otherMatches: chosen.otherMatches,
  };
}

function licensedBoxesOf(detections: readonly Detection[]): string[] {
  const boxes = new Set<string>();
  for (const detection of detections) {
    for (const candidate of detection.candidates) {
      const boxId = licensedBoxOf(candidate.identity);
      if (boxId !== null) boxes.add(boxId);
    }
  }
  return [...boxes];
}

/** POST /identity/check: is this a protected identity, and what must happen? */
export async function checkIdentity(
  ctx: DetectionContext,
  caller: Caller,
  input: CheckInput,
): Promise<CheckOutcome> {
  const name = checkedName(input.name);
  const imageUrl = input.imageUrl === undefined ? undefined : checkImageUrl(input.imageUrl);
  const picture =
    imageUrl === undefined
      ? null
      : await pictureOf(
          ctx,
          caller,
          imageUrl,
          ctx.faceTimeouts.checkMs,
          ctx.pictureFetchMs.checkMs,
          ctx.checkPictureBudgetMs,
        );
  const detectNow = () => detect(ctx, name, picture, undefined, undefined, input.description);
  const detection = await confirmFaces(ctx, detectNow(), detectNow);
  const boxes = licensedBoxesOf([detection]);
  const tiers =
    boxes.length === 0
      ? new Map<string, string[]>()
      : await ctx.licenses.activeLicenseTiersByBox(ctx.db, caller.platformId, boxes, ctx.clock.now());
  return outcomeOf(caller, detection, input, (boxId) => tiers.get(boxId) ?? []);
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
 * batch, with its index); a picture that cannot be fetched only marks its own item, and one whose
 * faces were not examined in time (or past the platform's share) is `unavailable`.
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
  const started = performance.now();
  const detected = await mapLimited(checked, BATCH_FETCH_CONCURRENCY, async (input) => {
    let picture: CheckedPicture | null = null;
    let imageError: ItemImageError | undefined;
    if (input.imageUrl !== undefined) {
      const left = ctx.faceTimeouts.batchMs - (performance.now() - started);
      // Items wait for one of the batch's fetches: a late one gets what is left of the batch's time.
      const fetchMs = Math.min(ctx.pictureFetchMs.batchMs, left);
      try {
        if (fetchMs < 1) {
          throw new AppError('INVALID_IMAGE_URL', "The picture was not reached within the batch's time", {
            details: { reason: 'timeout' },
          });
        }
        // Past the platform's share of picture workers the item keeps its fingerprint when it is
        // cheap to take, not its faces; a huge picture is then not checked (its item says so).
        picture = await pictureOf(ctx, caller, input.imageUrl, left, fetchMs, left, 'without_faces');
      } catch (err) {
        // A refusal of the whole request (a platform over its share, a dependency away) is not an
        // item's: the batch answers it, as the single check would.
        if (!isAppError(err) || !isItemImageError(err)) throw err;
        imageError = err;
      }
    }
    const detectNow = () => detect(ctx, input.name, picture, undefined, undefined, input.description);
    const detection = await confirmFaces(ctx, detectNow(), detectNow);
    return { input, imageError, detection };
  });
  // The caller's licenses on every LICENSE box the batch met: one query, not one per item.
  const boxes = licensedBoxesOf(detected.map((d) => d.detection));
  const tiers =
    boxes.length === 0
      ? new Map<string, string[]>()
      : await ctx.licenses.activeLicenseTiersByBox(ctx.db, caller.platformId, boxes, ctx.clock.now());
  return detected.map(({ input, imageError, detection }) => {
    const outcome = outcomeOf(caller, detection, input, (boxId) => tiers.get(boxId) ?? []);
    return imageError === undefined ? outcome : { ...outcome, imageError };
  });
}
