import { parodyLikelihood, PARODY_THRESHOLD } from '../../src/domain/parody';

describe('parodyLikelihood', () => {
  it('when the description names parody or satire, then parody is likely', () => {
    expect(parodyLikelihood('A parody of late-night talk shows')).toBeGreaterThanOrEqual(PARODY_THRESHOLD);
    expect(parodyLikelihood(undefined, 'political satire')).toBeGreaterThanOrEqual(PARODY_THRESHOLD);
  });

  it('when only one hint is given (a tribute), then parody is possible but below the threshold', () => {
    const likelihood = parodyLikelihood('a fan tribute');
    expect(likelihood).toBeGreaterThan(0);
    expect(likelihood).toBeLessThan(PARODY_THRESHOLD);
  });

  it('when two hints are given (an impression in a comedy sketch), then parody is likely', () => {
    expect(parodyLikelihood('a comedy sketch impression')).toBeGreaterThanOrEqual(PARODY_THRESHOLD);
  });

  it('when parody is denied ("not a parody"), then it does not count', () => {
    expect(parodyLikelihood('This is not a parody, it is the official avatar')).toBe(0);
  });

  it('when nothing is said, then the likelihood is 0, and the same words always give the same figure', () => {
    expect(parodyLikelihood(undefined, undefined)).toBe(0);
    expect(parodyLikelihood('   ')).toBe(0);
    expect(parodyLikelihood('Satire, spoof and impression')).toBe(
      parodyLikelihood('Satire, spoof and impression'),
    );
  });
});
