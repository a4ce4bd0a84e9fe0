// The normal distribution's lower tail, accurate far out (1e-12 and below): the open-set rule
// (likeness.ts) multiplies a per-comparison probability by up to millions of enrolled faces.

/** The complementary error function, with a relative error under 1.2e-7 everywhere (Numerical Recipes' erfcc). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(-z * z + poly);
  return x >= 0 ? r : 2 - r;
}

/** P(Z ≤ z) for a standard normal Z. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

// Acklam's rational approximation of the inverse, then one Halley step on normalCdf.
const A = [
  -39.69683028665376, 220.9460984245205, -275.928510446969, 138.357751867269, -30.66479806614716,
  2.506628277459239,
];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

function poly(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((sum, c) => sum * x + c, 0);
}

/** The z with P(Z ≤ z) = p for a standard normal Z (0 < p < 1). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a probability strictly between 0 and 1, not ${p}`);
  const low = 0.02425;
  let z: number;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    z = poly(C, q) / (poly(D, q) * q + 1);
  } else if (p <= 1 - low) {
    const q = p - 0.5;
    const r = q * q;
    z = (poly(A, r) * q) / (poly(B, r) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    z = -poly(C, q) / (poly(D, q) * q + 1);
  }
  const e = normalCdf(z) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((z * z) / 2);
  return z - u / (1 + (z * u) / 2);
}

/** A normal distribution's parameters. */
export interface NormalFit {
  mean: number;
  sd: number;
}

/**
 * A normal distribution fitted to the lowest `fraction` of the values (least squares of the
 * normal quantile of each value's rank on the value), not to all of them: what decides false
 * matches is the lower tail, and impostor distances are not normal as a whole.
 */
export function fitLowerTail(values: readonly number[], fraction = 0.01): NormalFit {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const m = Math.max(10, Math.floor(n * fraction));
  if (n < m) throw new RangeError(`at least ${m} values are needed to fit a tail, not ${n}`);
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < m; i += 1) {
    const x = sorted[i] ?? 0;
    const y = normalQuantile((i + 0.5) / n);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  const intercept = (sy - slope * sx) / m;
  return { mean: -intercept / slope, sd: 1 / slope };
}
