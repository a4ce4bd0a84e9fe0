import { faceDistance } from './face-distance';
import { expectedFalseMatches, matchDistanceOf, reviewDistanceOf } from './likeness';
import { fitLowerTail, type NormalFit } from './likeness-tail';
import {
  type LabelledFaceSet,
  type ExaminedFace,
  pairCategoryOf,
  type PairDistances,
  byCategory,
  relationOf,
} from './labelled-faces';
export {
  type LabelledFace,
  type LabelledPicture,
  type LabelledFaceSet,
  type ExaminedFace,
  SMALL_FACE_PIXELS,
  labelFoundFaces,
  PAIR_CATEGORIES,
  type PairCategory,
  pairCategoryOf,
  type PairDistances,
} from './labelled-faces';
export * from './band-quality';

// What the labelled face set says about the thresholds (likeness.ts): pure functions over faces
// already examined, shared by the quality test and bench/likeness/open-set.ts, which do the I/O.

/** Every pair of the examined faces, measured. */
export function pairDistances(set: LabelledFaceSet, faces: readonly ExaminedFace[]): PairDistances {
  const groups = new Map<string, Set<number>>();
  set.lookAlikes.forEach((group, i) => {
    for (const person of group) groups.set(person, (groups.get(person) ?? new Set()).add(i));
  });
  const lookAlike = (a: ExaminedFace, b: ExaminedFace): boolean => {
    const ga = groups.get(a.person);
    const gb = groups.get(b.person);
    return ga !== undefined && gb !== undefined && [...ga].some((g) => gb.has(g));
  };
  const result: PairDistances = { genuine: byCategory(), impostor: byCategory(), lookAlike: [] };
  for (let i = 0; i < faces.length; i += 1) {
    for (let j = i + 1; j < faces.length; j += 1) {
      const a = faces[i];
      const b = faces[j];
      if (a === undefined || b === undefined) continue;
      const relation = relationOf(set, a, b);
      if (relation === undefined) continue;
      const d = faceDistance(a.descriptor, b.descriptor);
      result[relation][pairCategoryOf(a, b)].push(d);
      if (relation === 'impostor' && lookAlike(a, b)) result.lookAlike.push(d);
    }
  }
  return result;
}

/**
 * The tail model the open-set rule rests on, refitted on these pairs: the normal fitted to the
 * closest 1 % of impostor distances, and the correlation between one stranger's distances to two
 * pictures of one person.
 */
export function impostorTailOf(
  set: LabelledFaceSet,
  faces: readonly ExaminedFace[],
  pairs: PairDistances,
): NormalFit & { correlation: number } {
  const all = Object.values(pairs.impostor).flat();
  const tail = fitLowerTail(all, 0.01);
  const byPerson = new Map<string, ExaminedFace[]>();
  for (const f of faces) byPerson.set(f.person, [...(byPerson.get(f.person) ?? []), f]);
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const [person, pictures] of byPerson) {
    for (const probe of faces) {
      if (probe.person === person || relationOf(set, probe, pictures[0] ?? probe) !== 'impostor') continue;
      for (let i = 0; i < pictures.length; i += 1) {
        for (let j = i + 1; j < pictures.length; j += 1) {
          const a = pictures[i];
          const b = pictures[j];
          if (a === undefined || b === undefined || a.picture === b.picture) continue;
          const x = faceDistance(probe.descriptor, a.descriptor);
          const y = faceDistance(probe.descriptor, b.descriptor);
          n += 1;
          sx += x;
          sy += y;
          sxx += x * x;
          syy += y * y;
          sxy += x * y;
        }
      }
    }
  }
  const correlation = (n * sxy - sx * sy) / Math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
  return { ...tail, correlation };
}

/**
 * A person's faces compared with `references` of their other pictures at once: for every face of
 * a person with more pictures than that, the mean distance to the first `references` others.
 */
export function identityDistances(faces: readonly ExaminedFace[], references: number): number[] {
  const byPerson = new Map<string, ExaminedFace[]>();
  for (const f of faces) byPerson.set(f.person, [...(byPerson.get(f.person) ?? []), f]);
  const out: number[] = [];
  for (const pictures of byPerson.values()) {
    for (const probe of pictures) {
      const others = pictures.filter((p) => p.picture !== probe.picture).slice(0, references);
      if (others.length < references) continue;
      out.push(others.reduce((sum, o) => sum + faceDistance(probe.descriptor, o.descriptor), 0) / references);
    }
  }
  return out;
}

/** What a check against a gallery of one size expects, and finds, in each band. */
export interface OpenSetRow {
  gallerySize: number;
  references: number;
  /** False matches a checked face expects at the one-comparison match threshold. */
  expectedAtFixedThreshold: number;
  matchDistance: number;
  expectedFalseMatches: number;
  reviewDistance: number;
  expectedReviews: number;
  /** Genuine pairs of the labelled set within the match edge, and within the review edge. */
  recallMatch: number;
  recallMatchOrReview: number;
  genuine: number;
}

/** The open-set figures for these galleries, with the labelled set's genuine distances for the recall. */
export function openSetFigures(
  galleries: readonly number[],
  genuineByReferences: ReadonlyMap<number, readonly number[]>,
  fixedMatchDistance: number,
): OpenSetRow[] {
  const rows: OpenSetRow[] = [];
  for (const [references, genuine] of genuineByReferences) {
    for (const gallerySize of galleries) {
      const matchDistance = matchDistanceOf(gallerySize, references);
      const reviewDistance = reviewDistanceOf(gallerySize, references);
      const within = (edge: number) =>
        genuine.length === 0 ? NaN : genuine.filter((d) => d <= edge).length / genuine.length;
      rows.push({
        gallerySize,
        references,
        expectedAtFixedThreshold: expectedFalseMatches(fixedMatchDistance, gallerySize, references),
        matchDistance,
        expectedFalseMatches: expectedFalseMatches(matchDistance, gallerySize, references),
        reviewDistance,
        expectedReviews: expectedFalseMatches(reviewDistance, gallerySize, references),
        recallMatch: within(matchDistance),
        recallMatchOrReview: within(reviewDistance),
        genuine: genuine.length,
      });
    }
  }
  return rows;
}
