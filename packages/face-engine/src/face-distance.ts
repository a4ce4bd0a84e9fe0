/** Euclidean distance between two face descriptors: about 0.6 or less is the same person for face-api. */
export function faceDistance(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw new RangeError(`descriptors of different lengths (${a.length} and ${b.length})`);
  }
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    sum += d * d;
  }
  return Math.sqrt(sum);
}
