/**
 * Synthetic face descriptors with the structure of face-api's (no pictures, no model): every
 * person is a centre, every picture of them the centre plus noise.
 *
 *   - centre = a shared mean (norm 0.7: descriptors of faces are alike, all in one cone) + the
 *     person's own part, Gaussian with a decaying spread over the numbers (variance ∝ 1/(1 + k/32),
 *     numbers shuffled, total variance 0.5): two people lie ~1.0 apart (0.6 to 1.3), as face-api
 *     descriptors of different people do, and the norms are ~1 (not exactly 1);
 *   - picture = centre + isotropic noise of a per-picture spread between 0.017 and 0.036 per
 *     number: two pictures of one person lie 0.27 to 0.58 apart (face-api: ~0.28 to 0.57).
 * Everything comes from seeded PRNGs: the same seed gives the same faces on every run.
 */
const DIM = 128;

/** mulberry32: a small seeded PRNG answering [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sampler (Box-Muller) over a uniform PRNG. */
export function gaussian(random: () => number): () => number {
  let spare = Number.NaN;
  return () => {
    if (!Number.isNaN(spare)) {
      const out = spare;
      spare = Number.NaN;
      return out;
    }
    const u = 1 - random();
    const v = random();
    const radius = Math.sqrt(-2 * Math.log(u));
    spare = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  };
}

export class SyntheticFaces {
  private readonly mean = new Float32Array(DIM);
  private readonly spread = new Float32Array(DIM);
  private readonly centre = new Float32Array(DIM);

  constructor(private readonly seed: number) {
    const random = prng(seed);
    const normal = gaussian(random);
    let norm = 0;
    for (let d = 0; d < DIM; d++) {
      const v = normal();
      this.mean[d] = v;
      norm += v * v;
    }
    for (let d = 0; d < DIM; d++) this.mean[d] = ((this.mean[d] ?? 0) * 0.7) / Math.sqrt(norm);
    // Decaying variances, shuffled over the numbers, summing to 0.5.
    const variances = Array.from({ length: DIM }, (_, k) => 1 / (1 + k / 32));
    for (let i = DIM - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const t = variances[i] ?? 0;
      variances[i] = variances[j] ?? 0;
      variances[j] = t;
    }
    const total = variances.reduce((a, b) => a + b, 0);
    for (let d = 0; d < DIM; d++) this.spread[d] = Math.sqrt((0.5 * (variances[d] ?? 0)) / total);
  }

  /** Person `person`'s centre (the same on every call). */
  centreOf(person: number): Float32Array {
    const normal = gaussian(prng(Math.imul(person + 1, 0x9e3779b1) ^ this.seed));
    for (let d = 0; d < DIM; d++) this.centre[d] = (this.mean[d] ?? 0) + (this.spread[d] ?? 0) * normal();
    return this.centre;
  }

  /** `count` new pictures of a person, written to out from offset (noise from `random`). */
  picturesOf(person: number, count: number, random: () => number, out: Float32Array, offset = 0): void {
    const centre = this.centreOf(person);
    const normal = gaussian(random);
    for (let p = 0; p < count; p++) {
      const noise = 0.017 + random() * 0.019;
      const base = offset + p * DIM;
      for (let d = 0; d < DIM; d++) out[base + d] = (centre[d] ?? 0) + noise * normal();
    }
  }
}
