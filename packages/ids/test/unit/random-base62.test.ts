import { randomBase62 } from '../../src';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('randomBase62', () => {
  it.each([0, 1, 16, 22, 40, 200])(
    'when asked for %i characters, then exactly that many base62 characters come back',
    (n) => {
      const value = randomBase62(n);

      expect(value).toHaveLength(n);
      expect(value).toMatch(/^[0-9A-Za-z]*$/);
    },
  );

  it('when asked for a fractional, negative or non-finite length, then it refuses with a RangeError', () => {
    expect(() => randomBase62(2.5)).toThrow(RangeError);
    expect(() => randomBase62(-1)).toThrow(RangeError);
    expect(() => randomBase62(Number.NaN)).toThrow(RangeError);
    expect(() => randomBase62(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('when many characters are drawn, then all 62 appear about equally often (no modulo bias)', () => {
    const draws = 62 * 2_000;
    const counts = new Map<string, number>();
    for (const char of randomBase62(draws)) counts.set(char, (counts.get(char) ?? 0) + 1);

    const expected = draws / 62;
    const chiSquare = [...ALPHABET].reduce(
      (sum, char) => sum + ((counts.get(char) ?? 0) - expected) ** 2 / expected,
      0,
    );

    expect([...counts.keys()].sort()).toEqual([...ALPHABET].sort());
    // 61 degrees of freedom: the mean is 61 and 200 is beyond any honest draw (p < 1e-15), while
    // taking `byte % 62` without rejecting bytes >= 248 scores about 800 on this many draws.
    expect(chiSquare).toBeLessThan(200);
  });

  it('when many short strings are drawn one after another, then none repeats and the characters stay unbiased', () => {
    // Short draws take their bytes from a shared pool refilled every 4 KiB (20,000 draws refill it
    // about 70 times): bytes handed out twice would repeat strings, a missed refill would skew them.
    const drawn = Array.from({ length: 20_000 }, () => randomBase62(12));
    expect(new Set(drawn).size).toBe(drawn.length);

    const counts = new Map<string, number>();
    for (const char of drawn.join('')) counts.set(char, (counts.get(char) ?? 0) + 1);
    const expected = (drawn.length * 12) / 62;
    const chiSquare = [...ALPHABET].reduce(
      (sum, char) => sum + ((counts.get(char) ?? 0) - expected) ** 2 / expected,
      0,
    );
    expect(chiSquare).toBeLessThan(200);
  });
});
