import type { MatchLayer } from '@svc/contracts/common';
import type { ImageFingerprint } from '@svc/image-fingerprint';
import { bandOf, judgedDistanceOf, likenessScoreOf, reviewRadiusOf } from './face-matching/bands';
import type { FaceHit, IdentityFilter } from './identity-catalogue';
import type { IndexedIdentity } from './identity';
import type { DetectionContext } from './ports';
import type { Layer, Classification, Likeness, Candidate, Detection } from './detection';

// The matching itself: a name's (and picture's) evidence per identity, added up into a detection.

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
