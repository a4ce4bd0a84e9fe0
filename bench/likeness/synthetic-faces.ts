/**
 * Synthetic face descriptors with the structure of face-api's (no pictures, no model): every
 * person is a centre, every picture of them the centre plus noise, in one of two models:
 *
 *   - `unit` (the default; the brief of the face index): centre = a shared mean of norm 0.7 + the
 *     person's own part, Gaussian with variances ∝ 1/(1 + k/32) shuffled over the numbers,
 *     totalling 0.5: norms ~1 (0.83 to 1.28), two people ~1.0 apart (0.6 to 1.3);
 *   - `measured`: what face-api (the engine's examiner) gave for the 188 faces of
 *     packages/face-engine/test/fixtures/faces (2026-11-29): descriptors are not normalised (norms
 *     1.20 to 1.63, median 1.44), share a mean of norm 1.32, and their variance (0.33 in all) is
 *     spread almost evenly over the numbers (the widest 4.4x the narrowest, the widest 16 hold
 *     19 %); two faces lie 0.80 apart on average. So: mean norm 1.32, the person's part with
 *     variances ∝ 1/(1 + k/96) (the widest 16: 18 %) totalling 0.24; two people ~0.8 apart.
 *
 * In both, picture = centre + isotropic noise of a per-picture spread between 0.017 and 0.036 per
 * number: two pictures of one person lie 0.27 to 0.58 apart (face-api: ~0.28 to 0.57).
 * Everything comes from seeded PRNGs: the same seed gives the same faces on every run.
 */
import { seededRandom } from '@svc/face-engine';
const DIM = 128;
const MODELS = {
  unit: { meanNorm: 0.7, personVariance: 0.5, decay: 32 },
  measured: { meanNorm: 1.32, personVariance: 0.24, decay: 96 },
} as const;
export type FaceModel = keyof typeof MODELS;

/** mulberry32: the face index's own seeded PRNG answering [0, 1). */
export const prng = seededRandom;

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

  constructor(
    private readonly seed: number,
    model: FaceModel = 'unit',
  ) {
    const { meanNorm, personVariance, decay } = MODELS[model];
    const random = prng(seed);
    const normal = gaussian(random);
    let norm = 0;
    for (let d = 0; d < DIM; d++) {
      const v = normal();
      this.mean[d] = v;
      norm += v * v;
    }
    for (let d = 0; d < DIM; d++) this.mean[d] = ((this.mean[d] ?? 0) * meanNorm) / Math.sqrt(norm);
    // Decaying variances, shuffled over the numbers, summing to personVariance.
    const variances = Array.from({ length: DIM }, (_, k) => 1 / (1 + k / decay));
    for (let i = DIM - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const t = variances[i] ?? 0;
      variances[i] = variances[j] ?? 0;
      variances[j] = t;
    }
    const total = variances.reduce((a, b) => a + b, 0);
    for (let d = 0; d < DIM; d++) this.spread[d] = Math.sqrt((personVariance * (variances[d] ?? 0)) / total);
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
