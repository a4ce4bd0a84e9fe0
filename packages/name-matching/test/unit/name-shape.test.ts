import fc from 'fast-check';
import { COMPACT_FULL, compactShapeOf, packShape, shapeOfCompact } from '../../src';

// A name's bound is computed from its shape (ADR 0007); the 16-bit copy read while bounding
// thousands of names must give the very same shape, or say that the full one must be read.

describe('a name shape in 16 bits', () => {
  it('when any shape is made compact, then it reads back the same, or is marked for the full shape when a field does not fit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0x4100 }),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 0, max: 9 }),
        fc.boolean(),
        (letters, words, distinct, short, primary) => {
          const shape = packShape(letters, words, distinct, short, primary);
          const compact = compactShapeOf(shape);
          const fits = letters <= 63 && words <= 7 && distinct <= 7 && short <= 3;
          expect(compact === COMPACT_FULL).toBe(!fits);
          if (fits) expect(shapeOfCompact(compact)).toBe(shape);
        },
      ),
      { numRuns: 2000, seed: 20261128 },
    );
  });

  it('when a name has 8 words or 64 letters, then its compact shape sends the bound to the full one', () => {
    expect(compactShapeOf(packShape(40, 8, 8, 0, true))).toBe(COMPACT_FULL);
    expect(compactShapeOf(packShape(64, 2, 2, 0, false))).toBe(COMPACT_FULL);
    expect(shapeOfCompact(compactShapeOf(packShape(63, 7, 7, 3, true)))).toBe(packShape(63, 7, 7, 3, true));
  });
});
