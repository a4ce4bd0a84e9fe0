import { normalCdf, normalQuantile } from './likeness-tail';

// How far apart two face descriptors may be for the faces to be one person's, and what a check
// against many enrolled faces does to that (docs/adr/0026-likeness-faces.md). Every number here
// was measured on the labelled face set (test/fixtures/faces) by test/unit/likeness-quality.test.ts,
// which prints the distributions and fails when the set no longer supports them.

/** A face's band: `match` acts as a name match, `review` asks for a human look (docs/spec/contracts.md §15). */
export type FaceLikenessBand = 'match' | 'review' | 'none';

/**
 * Distances for one comparison (a gallery of one face): at or below `match`, no two different
 * people of the labelled set ever came (its closest strangers: 0.45); at or below `review`, at
 * least 95 % of the same person's other pictures did, in every kind of picture.
 */
export const LIKENESS_THRESHOLDS = { match: 0.44, review: 0.68 } as const;

/**
 * Chance hits a checked face may expect, whatever the number of enrolled faces: a false `match`
 * in one check in a thousand, a stranger sent to `review` in one in twenty.
 */
export const LIKENESS_BUDGETS = { match: 0.001, review: 0.05 } as const;

/**
 * The lower tail of the distances between two different people's faces: a normal fitted to the
 * closest 1 % of the labelled set's stranger pairs (the whole distribution's mean is 0.82 and its
 * tail is heavier than a normal's); `correlation`: between one stranger's distances to two
 * pictures of one person (a look-alike resembles every picture of them).
 */
export const IMPOSTOR_TAIL = { mean: 0.84, sd: 0.094, correlation: 0.79 } as const;

function comparisons(gallerySize: number): number {
  return Math.max(1, gallerySize);
}

/** The spread of a stranger's mean distance to `references` pictures of one person. */
function tailSd(references: number): number {
  const k = Math.max(1, Math.floor(references));
  const rho = IMPOSTOR_TAIL.correlation;
  return IMPOSTOR_TAIL.sd * Math.sqrt((1 + (k - 1) * rho) / k);
}

/**
 * The probability that a stranger's face lies within `distance` of a face (or, with `references`
 * above one, that a stranger's mean distance to that many pictures of one person does).
 */
export function falseMatchProbability(distance: number, references = 1): number {
  return normalCdf((distance - IMPOSTOR_TAIL.mean) / tailSd(references));
}

/**
 * False matches one checked face can expect against `gallerySize` enrolled faces (or identities,
 * when the distance is the mean over `references` pictures of each): each comparison's
 * probability times the comparisons. A picture with several faces multiplies it again.
 */
export function expectedFalseMatches(distance: number, gallerySize: number, references = 1): number {
  return comparisons(gallerySize) * falseMatchProbability(distance, references);
}

/** The distance below which a checked face expects `budget` chance hits among `gallerySize` comparisons. */
function distanceForBudget(budget: number, gallerySize: number, references: number): number {
  return (
    IMPOSTOR_TAIL.mean + tailSd(references) * normalQuantile(Math.min(0.5, budget / comparisons(gallerySize)))
  );
}

/**
 * The `match` band's edge against this many enrolled faces: the one-comparison threshold while
 * the gallery is small, then tighter, so a check expects at most LIKENESS_BUDGETS.match false
 * matches however many faces are enrolled.
 */
export function matchDistanceOf(gallerySize: number, references = 1): number {
  return Math.min(
    LIKENESS_THRESHOLDS.match,
    distanceForBudget(LIKENESS_BUDGETS.match, gallerySize, references),
  );
}

/** The `review` band's edge against this many enrolled faces (never inside the `match` band). */
export function reviewDistanceOf(gallerySize: number, references = 1): number {
  const review = Math.min(
    LIKENESS_THRESHOLDS.review,
    distanceForBudget(LIKENESS_BUDGETS.review, gallerySize, references),
  );
  return Math.max(review, matchDistanceOf(gallerySize, references));
}

/**
 * The band of a face at `distance` from an enrolled face, in a gallery of `gallerySize` enrolled
 * faces. With `references` above one, `distance` is the mean distance to that many pictures of
 * one person (identityDistanceOf) and `gallerySize` counts people.
 */
export function bandOf(distance: number, gallerySize: number, references = 1): FaceLikenessBand {
  if (distance <= matchDistanceOf(gallerySize, references)) return 'match';
  return distance <= reviewDistanceOf(gallerySize, references) ? 'review' : 'none';
}

/** A face's distance to a person with several enrolled pictures: the mean of its distances to each. */
export function identityDistanceOf(distances: readonly number[]): number {
  if (distances.length === 0) throw new RangeError('no distance to take the mean of');
  return distances.reduce((sum, d) => sum + d, 0) / distances.length;
}

// Distance → score, straight lines between these points: the one-comparison match edge scores
// 0.80 (a name match at MODERATE needs 0.78), the review edge 0.62; a gallery's tighter edges
// score higher, so a `match` always scores at least 0.80 and a `review` at least 0.62.
const SCORE_POINTS: readonly (readonly [distance: number, score: number])[] = [
  [0, 1],
  [LIKENESS_THRESHOLDS.match, 0.8],
  [LIKENESS_THRESHOLDS.review, 0.62],
  [1.2, 0],
];

/** A face's likeness, 0..1 (1: the same face), falling as the distance grows. */
export function scoreOf(distance: number): number {
  if (!(distance > 0)) return 1;
  for (let i = 1; i < SCORE_POINTS.length; i += 1) {
    const [d1, s1] = SCORE_POINTS[i] ?? [0, 0];
    const [d0, s0] = SCORE_POINTS[i - 1] ?? [0, 0];
    if (distance <= d1) return s0 + ((distance - d0) / (d1 - d0)) * (s1 - s0);
  }
  return 0;
}
