import { DESCRIPTOR_LENGTH } from './types';

const DIM = DESCRIPTOR_LENGTH;

/** A seeded PRNG (mulberry32): the same training on the same faces gives the same lists. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Squared norms of `count` rows of `rows`. */
export function rowNorms(rows: Float32Array, count: number): Float32Array {
  const norms = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    const base = r * DIM;
    let sum = 0;
    for (let d = 0; d < DIM; d++) {
      const v = rows[base + d] ?? 0;
      sum += v * v;
    }
    norms[r] = sum;
  }
  return norms;
}

/**
 * |c|² - 2 x·c for row `c` of the centroids: x's squared distance to it less |x|², which is the
 * same for every row (four sums at once, so the loop pipelines).
 */
function centroidScore(
  xs: Float32Array,
  xBase: number,
  centroids: Float32Array,
  norms: Float32Array,
  c: number,
): number {
  const base = c * DIM;
  let a = 0;
  let b = 0;
  let e = 0;
  let f = 0;
  for (let d = 0; d < DIM; d += 4) {
    a += (xs[xBase + d] ?? 0) * (centroids[base + d] ?? 0);
    b += (xs[xBase + d + 1] ?? 0) * (centroids[base + d + 1] ?? 0);
    e += (xs[xBase + d + 2] ?? 0) * (centroids[base + d + 2] ?? 0);
    f += (xs[xBase + d + 3] ?? 0) * (centroids[base + d + 3] ?? 0);
  }
  return (norms[c] ?? 0) - 2 * (a + b + e + f);
}

/**
 * The row among centroids [from, to) nearest to x (at xBase in xs): the least |c|^2 - 2 x.c,
 * which ranks as the distance does at one multiply-add per number.
 */
export function nearestRow(
  xs: Float32Array,
  xBase: number,
  centroids: Float32Array,
  norms: Float32Array,
  from: number,
  to: number,
): number {
  let best = from;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let c = from; c < to; c++) {
    const score = centroidScore(xs, xBase, centroids, norms, c);
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

/** The two rows of centroids nearest to x (the same row twice when there is one). */
export function nearestTwo(
  xs: Float32Array,
  xBase: number,
  centroids: Float32Array,
  norms: Float32Array,
): [number, number] {
  let best = 0;
  let second = 0;
  let bestScore = Number.POSITIVE_INFINITY;
  let secondScore = Number.POSITIVE_INFINITY;
  for (let c = 0; c < norms.length; c++) {
    const score = centroidScore(xs, xBase, centroids, norms, c);
    if (score < bestScore) {
      second = best;
      secondScore = bestScore;
      best = c;
      bestScore = score;
    } else if (score < secondScore) {
      second = c;
      secondScore = score;
    }
  }
  return [best, norms.length > 1 ? second : best];
}

/** Squared distance between x and a centroid row. */
export function squaredDistance(
  xs: Float32Array,
  xBase: number,
  centroids: Float32Array,
  row: number,
): number {
  const base = row * DIM;
  let sum = 0;
  for (let d = 0; d < DIM; d++) {
    const t = (xs[xBase + d] ?? 0) - (centroids[base + d] ?? 0);
    sum += t * t;
  }
  return sum;
}

/**
 * Lloyd's k-means over the rows `members` of `data` (DIM numbers each), k centroids written to
 * `out` from row `outRow`. Starts from k distinct random members; an emptied centroid is moved
 * onto a random member, so every list gets faces.
 */
function kmeans(
  data: Float32Array,
  members: Uint32Array,
  k: number,
  iterations: number,
  random: () => number,
  out: Float32Array,
  outRow: number,
): void {
  const n = members.length;
  const centroids = new Float32Array(k * DIM);
  // k distinct starting members: a partial Fisher-Yates shuffle of a copy.
  const order = Uint32Array.from(members);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (n - i));
    const picked = order[j] ?? 0;
    order[j] = order[i] ?? 0;
    order[i] = picked;
    centroids.set(data.subarray(picked * DIM, picked * DIM + DIM), i * DIM);
  }
  const sums = new Float64Array(k * DIM);
  const counts = new Uint32Array(k);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const norms = rowNorms(centroids, k);
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const row = members[i] ?? 0;
      const c = nearestRow(data, row * DIM, centroids, norms, 0, k);
      counts[c] = (counts[c] ?? 0) + 1;
      const base = c * DIM;
      const xBase = row * DIM;
      for (let d = 0; d < DIM; d++) sums[base + d] = (sums[base + d] ?? 0) + (data[xBase + d] ?? 0);
    }
    for (let c = 0; c < k; c++) {
      const count = counts[c] ?? 0;
      const base = c * DIM;
      if (count === 0) {
        const row = members[Math.floor(random() * n)] ?? 0;
        centroids.set(data.subarray(row * DIM, row * DIM + DIM), base);
        continue;
      }
      for (let d = 0; d < DIM; d++) centroids[base + d] = (sums[base + d] ?? 0) / count;
    }
  }
  out.set(centroids, outRow * DIM);
}

/** Lists trained on a sample: the fine centroids grouped under coarse ones, for a fast bulk assignment. */
export interface TrainedLists {
  /** Coarse centroids (DIM numbers each). */
  coarse: Float32Array;
  /** Fine centroids, those of coarse centroid g at rows [groupStart[g], groupStart[g + 1]). */
  fine: Float32Array;
  groupStart: Uint32Array;
}

/**
 * Two-level k-means (coarse ~sqrt(lists) centroids, then each coarse cell split into fine ones in
 * proportion to its sample share): the cost is sample x (coarse + fine per cell) instead of
 * sample x lists, which keeps training 1M faces into 2,048 lists to seconds.
 */
export function trainLists(
  data: Float32Array,
  sample: Uint32Array,
  lists: number,
  random: () => number,
  iterations = 8,
): TrainedLists {
  const groups = Math.max(1, Math.min(lists, Math.round(Math.sqrt(lists))));
  const coarse = new Float32Array(groups * DIM);
  kmeans(data, sample, groups, iterations, random, coarse, 0);
  const norms = rowNorms(coarse, groups);
  const cellOf = new Uint32Array(sample.length);
  const cellSize = new Uint32Array(groups);
  for (let i = 0; i < sample.length; i++) {
    const c = nearestRow(data, (sample[i] ?? 0) * DIM, coarse, norms, 0, groups);
    cellOf[i] = c;
    cellSize[c] = (cellSize[c] ?? 0) + 1;
  }
  // Fine centroids per cell in proportion to its members (at least one, at most its members).
  const share = new Uint32Array(groups);
  let given = 0;
  for (let g = 0; g < groups; g++) {
    const size = cellSize[g] ?? 0;
    const want = Math.max(1, Math.round((lists * size) / sample.length));
    share[g] = Math.max(1, Math.min(size, want));
    given += share[g] ?? 0;
  }
  // Rounding leaves the total a little off: trim the cells with the fewest members per centroid,
  // or add to those with the most.
  while (given !== lists) {
    const trim = given > lists;
    let pick = -1;
    let pickRatio = trim ? Number.POSITIVE_INFINITY : 0;
    for (let g = 0; g < groups; g++) {
      const s = share[g] ?? 1;
      const ratio = (cellSize[g] ?? 0) / s;
      if (trim ? s > 1 && ratio < pickRatio : s < (cellSize[g] ?? 0) && ratio > pickRatio) {
        pick = g;
        pickRatio = ratio;
      }
    }
    if (pick < 0) break;
    share[pick] = (share[pick] ?? 0) + (trim ? -1 : 1);
    given += trim ? -1 : 1;
  }
  const groupStart = new Uint32Array(groups + 1);
  for (let g = 0; g < groups; g++) groupStart[g + 1] = (groupStart[g] ?? 0) + (share[g] ?? 0);
  const fine = new Float32Array(given * DIM);
  const members = new Uint32Array(sample.length);
  const fill = new Uint32Array(groups + 1);
  for (let g = 0; g < groups; g++) fill[g + 1] = (fill[g] ?? 0) + (cellSize[g] ?? 0);
  const cursor = Uint32Array.from(fill);
  for (let i = 0; i < sample.length; i++) {
    const c = cellOf[i] ?? 0;
    members[cursor[c] ?? 0] = sample[i] ?? 0;
    cursor[c] = (cursor[c] ?? 0) + 1;
  }
  for (let g = 0; g < groups; g++) {
    const k = share[g] ?? 0;
    if (k === 0) continue;
    const cell = members.subarray(fill[g] ?? 0, fill[g + 1] ?? 0);
    kmeans(data, cell, k, iterations, random, fine, groupStart[g] ?? 0);
  }
  return { coarse, fine, groupStart };
}
