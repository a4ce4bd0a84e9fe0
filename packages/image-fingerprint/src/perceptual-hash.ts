// The hashes, computed on a greyscale raster already decoded by sharp. Pure arithmetic.

/** A greyscale raster: one byte per pixel, row by row. */
export interface GreyRaster {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** A rectangle in pixel units; fractional edges are weighted by coverage. */
interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

const DCT_SIZE = 32;
const DCT_KEEP = 8;

// cos((2x + 1) u π / 2N) for the kept low frequencies u.
const COSINES: Float64Array[] = Array.from({ length: DCT_KEEP }, (_, u) =>
  Float64Array.from({ length: DCT_SIZE }, (_x, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * DCT_SIZE))),
);

/** For each output cell, the source pixels it covers and their weights (box filter, area-exact). */
function coverage(
  start: number,
  length: number,
  cells: number,
  limit: number,
): { from: number; weights: number[] }[] {
  const step = length / cells;
  return Array.from({ length: cells }, (_, i) => {
    const a = start + i * step;
    const b = a + step;
    const from = Math.max(0, Math.floor(a));
    const weights: number[] = [];
    for (let k = from; k < Math.min(limit, Math.ceil(b)); k += 1) {
      weights.push((Math.min(b, k + 1) - Math.max(a, k)) / step);
    }
    return { from, weights };
  });
}

/** Averages `region` of the raster down to `width` x `height` cells (area resampling). */
export function resampleRegion(
  raster: GreyRaster,
  region: Region,
  width: number,
  height: number,
): Float64Array {
  const columns = coverage(region.left, region.width, width, raster.width);
  const rows = coverage(region.top, region.height, height, raster.height);
  // Horizontal pass over every source row the region touches, then the vertical pass.
  const firstRow = rows[0]?.from ?? 0;
  const lastRow = Math.min(raster.height, Math.ceil(region.top + region.height));
  const horizontal = new Float64Array((lastRow - firstRow) * width);
  for (let y = firstRow; y < lastRow; y += 1) {
    const rowStart = y * raster.width;
    for (let x = 0; x < width; x += 1) {
      const column = columns[x] ?? { from: 0, weights: [] };
      let sum = 0;
      for (let k = 0; k < column.weights.length; k += 1) {
        sum += (raster.pixels[rowStart + column.from + k] ?? 0) * (column.weights[k] ?? 0);
      }
      horizontal[(y - firstRow) * width + x] = sum;
    }
  }
  const out = new Float64Array(width * height);
  for (let y = 0; y < height; y += 1) {
    const row = rows[y] ?? { from: 0, weights: [] };
    for (let x = 0; x < width; x += 1) {
      let sum = 0;
      for (let k = 0; k < row.weights.length; k += 1) {
        sum += (horizontal[(row.from - firstRow + k) * width + x] ?? 0) * (row.weights[k] ?? 0);
      }
      out[y * width + x] = sum;
    }
  }
  return out;
}

/** Writes `bits` (64 booleans, most significant first) into two 32-bit words at `at`. */
function packBits(bits: boolean[], words: Uint32Array, at: number): void {
  for (let word = 0; word < bits.length / 32; word += 1) {
    let value = 0;
    for (let i = 0; i < 32; i += 1) value = (value << 1) | (bits[word * 32 + i] ? 1 : 0);
    words[at + word] = value >>> 0;
  }
}

/**
 * 64-bit DCT hash (pHash): the 8x8 lowest frequencies of the 32x32 DCT-II of the region, each
 * bit set when its coefficient is above the median of the 63 non-DC coefficients.
 */
export function dctHash(raster: GreyRaster, region: Region, words: Uint32Array, at: number): void {
  const pixels = resampleRegion(raster, region, DCT_SIZE, DCT_SIZE);
  // Rows first (32 rows x 8 frequencies), then columns: separable, only the kept frequencies.
  const rowPass = new Float64Array(DCT_SIZE * DCT_KEEP);
  for (let y = 0; y < DCT_SIZE; y += 1) {
    for (let u = 0; u < DCT_KEEP; u += 1) {
      const cos = COSINES[u] ?? new Float64Array(DCT_SIZE);
      let sum = 0;
      for (let x = 0; x < DCT_SIZE; x += 1) sum += (pixels[y * DCT_SIZE + x] ?? 0) * (cos[x] ?? 0);
      rowPass[y * DCT_KEEP + u] = sum;
    }
  }
  const coefficients: number[] = [];
  for (let v = 0; v < DCT_KEEP; v += 1) {
    const cos = COSINES[v] ?? new Float64Array(DCT_SIZE);
    for (let u = 0; u < DCT_KEEP; u += 1) {
      let sum = 0;
      for (let y = 0; y < DCT_SIZE; y += 1) sum += (rowPass[y * DCT_KEEP + u] ?? 0) * (cos[y] ?? 0);
      coefficients.push(sum);
    }
  }
  const sorted = coefficients.slice(1).sort((a, b) => a - b);
  const median = ((sorted[30] ?? 0) + (sorted[31] ?? 0)) / 2;
  packBits(
    coefficients.map((c) => c > median),
    words,
    at,
  );
}

/**
 * How much brighter (grey levels, 0..255, on cell means) a dHash cell must be than its left
 * neighbour for its bit to be set. Without it a flat area's bits are decided by noise, and a
 * brightness change that flattens it (clipping) flips half of them: measured, a 10 % brightening
 * fell to 0.48 similarity with 0 and stays above 0.94 with 2 (README).
 */
export const DHASH_DEAD_ZONE = 2;

/** 64-bit difference hash (dHash): the region at 9x8, a bit set when a cell is brighter than its left neighbour. */
export function differenceHash(raster: GreyRaster, region: Region, words: Uint32Array, at: number): void {
  const cells = resampleRegion(raster, region, 9, 8);
  const bits: boolean[] = [];
  for (let y = 0; y < 8; y += 1) {
    for (let x = 0; x < 8; x += 1)
      bits.push((cells[y * 9 + x + 1] ?? 0) > (cells[y * 9 + x] ?? 0) + DHASH_DEAD_ZONE);
  }
  packBits(bits, words, at);
}

/** The region left after cutting `fraction` of the raster from each side. */
export function centredCrop(raster: GreyRaster, fraction: number): Region {
  return {
    left: raster.width * fraction,
    top: raster.height * fraction,
    width: raster.width * (1 - 2 * fraction),
    height: raster.height * (1 - 2 * fraction),
  };
}
