// Multi-index hashing (Norouzi et al.): each 128-bit hash is cut into BLOCK_BITS.length blocks and
// filed under each block's value. Two hashes within distance d differ, by the pigeonhole
// principle, in at most floor(d / blocks) bits of at least one block, so probing every key within
// that radius of each of the query's blocks finds every candidate; a popcount then checks it.
// Six blocks (22/22/21/21/21/21 bits) keep the radius at 2 up to a distance of 17 bits
// (similarity 0.86, the detection threshold): about 240 keys per block, and at 1M images about
// one entry per four buckets. (Seven 18-bit blocks reach 20 bits at radius 2 but visit eight
// times as many candidates: 3.4 ms instead of ~0.5 ms a query at 1M; see the README.)
export const BLOCK_BITS = [22, 22, 21, 21, 21, 21] as const;
export const BLOCK_START = BLOCK_BITS.map((_, i) => BLOCK_BITS.slice(0, i).reduce((a, b) => a + b, 0));
/**
 * Per block, a 32-bit word of the hash that shares no bit with the block (blocks 0-5 cover bits
 * 0-21, 22-43, 44-64, 65-85, 86-106, 107-127). It is kept beside each entry's bucket link, so a
 * walk reads link and word in one cache line: an entry found at `r` flips of the block key is
 * at least r + popcount(word ^ query word) away, and only entries within the limit by that
 * bound have their whole hash read (about 45 % of unrelated ones at 17 bits).
 */
export const SHORT_WORD = [2, 3, 0, 0, 1, 1] as const;

/** The `bits` bits of a hash (words at `at`) starting at bit `start`, most significant first. */
export function blockKey(words: Uint32Array, at: number, start: number, bits: number): number {
  let key = 0;
  for (let taken = 0; taken < bits;) {
    const bit = start + taken;
    const word = words[at + (bit >>> 5)] ?? 0;
    const offset = bit & 31;
    const take = Math.min(bits - taken, 32 - offset);
    // take <= 22 (the widest block), so the mask never reaches the sign bit.
    const chunk = (word >>> (32 - offset - take)) & ((1 << take) - 1);
    key = key * 2 ** take + chunk;
    taken += take;
  }
  return key;
}

/** Number of keys of `bits` bits within Hamming distance `radius` of a key. */
export function keysWithin(bits: number, radius: number): number {
  let total = 0;
  let combinations = 1;
  for (let r = 0; r <= Math.min(radius, bits); r += 1) {
    total += combinations;
    combinations = (combinations * (bits - r)) / (r + 1);
  }
  return total;
}

/** Calls `visit` with every key within `radius` bit flips of `key` (each once). */
export function forEachKeyWithin(
  key: number,
  bits: number,
  radius: number,
  visit: (key: number) => void,
): void {
  visit(key);
  if (radius <= 2) {
    // The usual case (thresholds down to 0.86), without recursion.
    for (let i = 0; radius > 0 && i < bits; i += 1) {
      const one = key ^ (1 << i);
      visit(one);
      for (let j = i + 1; radius > 1 && j < bits; j += 1) visit(one ^ (1 << j));
    }
    return;
  }
  const flip = (current: number, from: number, left: number): void => {
    for (let bit = from; bit < bits; bit += 1) {
      const next = current ^ (1 << bit);
      visit(next);
      if (left > 1) flip(next, bit + 1, left - 1);
    }
  };
  if (radius > 0) flip(key, 0, radius);
}
