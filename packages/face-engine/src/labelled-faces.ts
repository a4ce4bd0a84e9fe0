import type { DetectedFace } from './types';

// The labelled face set, the faces the examiner found in it, and the pairs they make (by kind).

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

export function byCategory(): Record<PairCategory, number[]> {
  return { turned: [], small: [], group: [], frontal: [] };
}

/** Whether two faces make a pair, and which: the same person in two pictures, or two people known to differ. */
export function relationOf(
  set: LabelledFaceSet,
  a: ExaminedFace,
  b: ExaminedFace,
): 'genuine' | 'impostor' | undefined {
  if (a.person === b.person) return a.picture === b.picture ? undefined : 'genuine';
  const family = familyOf(set, a.person);
  if (family !== undefined && family === familyOf(set, b.person) && a.picture !== b.picture) return undefined;
  return 'impostor';
}
