import { faceDistance } from './face-distance';
import { bandOf, expectedFalseMatches, matchDistanceOf, reviewDistanceOf } from './likeness';
import { fitLowerTail, type NormalFit } from './likeness-tail';
import type { DetectedFace } from './types';

// What the labelled face set says about the thresholds (likeness.ts): pure functions over faces
// already examined, shared by the quality test and bench/likeness/open-set.ts, which do the I/O.

/** One face of a labelled picture: who, where (x, y, width, height in the picture's pixels), and how it is seen. */
export interface LabelledFace {
  person: string;
  box: readonly [number, number, number, number];
  /** `turned`: yaw or roll of about 30° or more, or partly hidden. */
  view: 'frontal' | 'turned';
}

/** A picture of the labelled set (test/fixtures/faces/faces.json). */
export interface LabelledPicture {
  file: string;
  kind: 'portrait' | 'single' | 'group';
  faces: readonly LabelledFace[];
}

/** The labelled set: its pictures, and who looks like whom. */
export interface LabelledFaceSet {
  /**
   * People whose id starts with `<family>-` are told apart only within one picture (who is who
   * across the family's pictures is not known): two of them in different pictures make no pair.
   */
  families: Readonly<Record<string, string>>;
  /** Groups of people who look alike (sex, age, complexion, hair): their pairs are the look-alike impostors. */
  lookAlikes: readonly (readonly string[])[];
  pictures: readonly LabelledPicture[];
}

/** A labelled face as the examiner described it. */
export interface ExaminedFace {
  picture: string;
  kind: LabelledPicture['kind'];
  person: string;
  view: LabelledFace['view'];
  /** Under SMALL_FACE_PIXELS on its shorter side. */
  small: boolean;
  descriptor: Float32Array;
}

/** A face this small or smaller (shorter side, in the picture's pixels) counts as a small face. */
export const SMALL_FACE_PIXELS = 48;

/** The share of a labelled box a found face must cover (intersection over union) to be that face. */
const MIN_OVERLAP = 0.4;

function overlap(a: readonly number[], b: readonly number[]): number {
  const [ax = 0, ay = 0, aw = 0, ah = 0] = a;
  const [bx = 0, by = 0, bw = 0, bh = 0] = b;
  const w = Math.max(0, Math.min(ax + aw, bx + bw) - Math.max(ax, bx));
  const h = Math.max(0, Math.min(ay + ah, by + bh) - Math.max(ay, by));
  const inter = w * h;
  return inter / (aw * ah + bw * bh - inter);
}

/** Each labelled face with the found face that covers its box most; `missed`: labelled faces none covers. */
export function labelFoundFaces(
  picture: LabelledPicture,
  found: readonly DetectedFace[],
): { faces: ExaminedFace[]; missed: LabelledFace[] } {
  const faces: ExaminedFace[] = [];
  const missed: LabelledFace[] = [];
  for (const label of picture.faces) {
    let best: DetectedFace | undefined;
    let bestOverlap = MIN_OVERLAP;
    for (const face of found) {
      const o = overlap(label.box, [face.box.x, face.box.y, face.box.width, face.box.height]);
      if (o >= bestOverlap) {
        best = face;
        bestOverlap = o;
      }
    }
    if (best === undefined) {
      missed.push(label);
      continue;
    }
    faces.push({
      picture: picture.file,
      kind: picture.kind,
      person: label.person,
      view: label.view,
      small: Math.min(label.box[2], label.box[3]) < SMALL_FACE_PIXELS,
      descriptor: best.descriptor,
    });
  }
  return { faces, missed };
}

/** The kinds of pairs, hardest first: a pair is of the hardest kind either face is. */
export const PAIR_CATEGORIES = ['turned', 'small', 'group', 'frontal'] as const;
export type PairCategory = (typeof PAIR_CATEGORIES)[number];

/** A pair's kind: turned if either face is, else small, else in a group photo, else frontal. */
export function pairCategoryOf(a: ExaminedFace, b: ExaminedFace): PairCategory {
  if (a.view === 'turned' || b.view === 'turned') return 'turned';
  if (a.small || b.small) return 'small';
  if (a.kind === 'group' || b.kind === 'group') return 'group';
  return 'frontal';
}

/** Distances of the same person's faces in different pictures, and of different people's, by kind. */
export interface PairDistances {
  genuine: Record<PairCategory, number[]>;
  impostor: Record<PairCategory, number[]>;
  /** The impostor pairs of people who look alike (also counted in `impostor`). */
  lookAlike: number[];
}

function familyOf(set: LabelledFaceSet, person: string): string | undefined {
  const prefix = person.split('-')[0] ?? '';
  return Object.hasOwn(set.families, prefix) ? prefix : undefined;
}

function byCategory(): Record<PairCategory, number[]> {
  return { turned: [], small: [], group: [], frontal: [] };
}

/** Whether two faces make a pair, and which: the same person in two pictures, or two people known to differ. */
function relationOf(
  set: LabelledFaceSet,
  a: ExaminedFace,
  b: ExaminedFace,
): 'genuine' | 'impostor' | undefined {
  if (a.person === b.person) return a.picture === b.picture ? undefined : 'genuine';
  const family = familyOf(set, a.person);
  if (family !== undefined && family === familyOf(set, b.person) && a.picture !== b.picture) return undefined;
  return 'impostor';
}

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

/** A distribution in a few numbers. */
export interface DistanceSummary {
  count: number;
  min: number;
  p01: number;
  p05: number;
  p25: number;
  p50: number;
  p75: number;
  p95: number;
  max: number;
}

/** The minimum, percentiles (nearest rank) and maximum of some distances. */
export function summarise(values: readonly number[]): DistanceSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return {
    count: sorted.length,
    min: sorted[0] ?? NaN,
    p01: at(0.01),
    p05: at(0.05),
    p25: at(0.25),
    p50: at(0.5),
    p75: at(0.75),
    p95: at(0.95),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** How the bands sort some pairs: precision of `match`, recall of `match` and of `match` + `review`. */
export interface BandQuality {
  genuine: number;
  impostors: number;
  /** Genuine pairs in the match band. */
  matched: number;
  /** Impostor pairs in the match band. */
  falseMatches: number;
  /** Impostor pairs in the review band. */
  falseReviews: number;
  /** matched / (matched + falseMatches); 1 when nothing matched. */
  precision: number;
  recallMatch: number;
  recallMatchOrReview: number;
}

/** The bands' quality on these pairs, each pair taken as one comparison in a gallery of `gallerySize`. */
export function bandQuality(
  genuine: readonly number[],
  impostor: readonly number[],
  gallerySize = 1,
): BandQuality {
  const bands = (ds: readonly number[]) => ds.map((d) => bandOf(d, gallerySize));
  const g = bands(genuine);
  const i = bands(impostor);
  const matched = g.filter((b) => b === 'match').length;
  const reviewed = g.filter((b) => b === 'review').length;
  const falseMatches = i.filter((b) => b === 'match').length;
  return {
    genuine: genuine.length,
    impostors: impostor.length,
    matched,
    falseMatches,
    falseReviews: i.filter((b) => b === 'review').length,
    precision: matched + falseMatches === 0 ? 1 : matched / (matched + falseMatches),
    recallMatch: genuine.length === 0 ? NaN : matched / genuine.length,
    recallMatchOrReview: genuine.length === 0 ? NaN : (matched + reviewed) / genuine.length,
  };
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
