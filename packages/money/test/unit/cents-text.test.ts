import fc from 'fast-check';
import { centsFromText, centsProblem, centsText, MAX_CENTS } from '../../src';

const TWO_TO_53 = 2n ** 53n;

/** Amounts in cents a column keeps, with the edges (0, 1, around 2^53, the largest) drawn often. */
const keptCents = fc.oneof(
  fc.constantFrom(0n, 1n, TWO_TO_53 - 1n, TWO_TO_53, TWO_TO_53 + 1n, MAX_CENTS - 1n, MAX_CENTS),
  fc.bigInt({ min: TWO_TO_53 - 1000n, max: TWO_TO_53 + 1000n }),
  fc.bigInt({ min: 0n, max: MAX_CENTS }),
);

describe('money: cents as text', () => {
  it('when any amount a column keeps is serialised and read back, then it is the same amount', () => {
    fc.assert(
      fc.property(keptCents, (cents) => {
        const text = centsText(cents);
        expect(text).toMatch(/^(0|[1-9][0-9]*)$/);
        expect(centsFromText(text)).toBe(cents);
        // Through JSON as a string, where a number past 2^53 would come back as another amount.
        expect(centsFromText(JSON.parse(JSON.stringify(text)) as string)).toBe(cents);
      }),
    );
  });

  it('when an amount is past 2^53, then the string carries it exactly where a JSON number does not', () => {
    const cents = TWO_TO_53 + 1n;
    expect(BigInt(JSON.parse(JSON.stringify(Number(cents))) as number)).not.toBe(cents);
    expect(centsFromText(JSON.parse(JSON.stringify(centsText(cents))) as string)).toBe(cents);
  });

  it('when an amount no column keeps is serialised, then a RangeError says why and nothing is rounded', () => {
    expect(() => centsText(MAX_CENTS + 1n)).toThrow(`at most ${MAX_CENTS} cents`);
    expect(() => centsText(-1n)).toThrow('cents must be ≥ 0');
  });

  it('when an event of the number form (before ADR 0039) is read, then a safe integer is taken as is', () => {
    expect(centsFromText(1999)).toBe(1999n);
    expect(centsFromText(Number.MAX_SAFE_INTEGER)).toBe(TWO_TO_53 - 1n);
  });

  it('when a number past 2^53 is read, then it is refused: a double there may already be rounded', () => {
    expect(() => centsFromText(2 ** 53)).toThrow('cents past 2^53 as a JSON number may be rounded');
    expect(centsProblem(1e20)).toMatch(/may be rounded/);
  });

  it('when a text is not one canonical whole number of cents, then it is refused', () => {
    for (const text of ['', '-1', '01', '1.5', '1e3', ' 1', '0x10', '９']) {
      expect(centsProblem(text)).toBe('cents must be a whole number of cents in decimal digits, e.g. "1999"');
    }
    expect(centsProblem((MAX_CENTS + 1n).toString())).toBe(`at most ${MAX_CENTS} cents`);
    expect(centsProblem(12.5)).toBe('cents must be a whole number ≥ 0');
    expect(centsProblem(null)).toBe('cents must be a string of decimal digits');
  });
});
