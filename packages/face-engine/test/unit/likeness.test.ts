import {
  LIKENESS_BUDGETS,
  LIKENESS_THRESHOLDS,
  bandOf,
  expectedFalseMatches,
  falseMatchProbability,
  identityDistanceOf,
  matchDistanceOf,
  reviewDistanceOf,
  scoreOf,
} from '../../src/likeness';
import { fitLowerTail, normalCdf, normalQuantile } from '../../src/likeness-tail';

const GALLERIES = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

describe('bands of one comparison', () => {
  test('when a face is at most the match distance away, then it matches; up to the review distance, it is for review; beyond, none', () => {
    expect(bandOf(0, 1)).toBe('match');
    expect(bandOf(LIKENESS_THRESHOLDS.match, 1)).toBe('match');
    expect(bandOf(LIKENESS_THRESHOLDS.match + 0.001, 1)).toBe('review');
    expect(bandOf(LIKENESS_THRESHOLDS.review, 1)).toBe('review');
    expect(bandOf(LIKENESS_THRESHOLDS.review + 0.001, 1)).toBe('none');
  });

  test('when the gallery size is zero or less, then it counts as one comparison', () => {
    expect(matchDistanceOf(0)).toBe(matchDistanceOf(1));
    expect(reviewDistanceOf(-5)).toBe(reviewDistanceOf(1));
  });
});

describe('bands in a growing gallery (the open-set rule)', () => {
  test('when more faces are enrolled, then both edges only tighten, and review never falls inside match', () => {
    for (let i = 1; i < GALLERIES.length; i += 1) {
      const [smaller = 1, larger = 1] = [GALLERIES[i - 1], GALLERIES[i]];
      expect(matchDistanceOf(larger)).toBeLessThanOrEqual(matchDistanceOf(smaller));
      expect(reviewDistanceOf(larger)).toBeLessThanOrEqual(reviewDistanceOf(smaller));
      expect(reviewDistanceOf(larger)).toBeGreaterThanOrEqual(matchDistanceOf(larger));
    }
  });

  test('when a face is checked against up to 10M enrolled faces, then it expects at most the budget of false matches and reviews', () => {
    for (const n of GALLERIES) {
      expect(expectedFalseMatches(matchDistanceOf(n), n)).toBeLessThanOrEqual(
        LIKENESS_BUDGETS.match * 1.0001,
      );
      expect(expectedFalseMatches(reviewDistanceOf(n), n)).toBeLessThanOrEqual(
        LIKENESS_BUDGETS.review * 1.0001,
      );
    }
    // At a million faces the one-comparison edge would expect about ten false matches per check.
    expect(expectedFalseMatches(LIKENESS_THRESHOLDS.match, 1_000_000)).toBeGreaterThan(1);
  });

  test('when a face is compared with several pictures of one person at once, then the edges are wider than with one', () => {
    for (const n of [10_000, 1_000_000]) {
      expect(matchDistanceOf(n, 3)).toBeGreaterThan(matchDistanceOf(n, 1));
      expect(expectedFalseMatches(matchDistanceOf(n, 3), n, 3)).toBeLessThanOrEqual(
        LIKENESS_BUDGETS.match * 1.0001,
      );
    }
    expect(falseMatchProbability(0.5, 3)).toBeLessThan(falseMatchProbability(0.5, 1));
    expect(identityDistanceOf([0.4, 0.5, 0.6])).toBeCloseTo(0.5, 10);
    expect(() => identityDistanceOf([])).toThrow(RangeError);
  });
});

describe('likeness score', () => {
  test('when the distance grows, then the score falls from 1 to 0', () => {
    let previous = scoreOf(0);
    expect(previous).toBe(1);
    for (let d = 0.01; d <= 1.5; d += 0.01) {
      const s = scoreOf(d);
      expect(s).toBeLessThanOrEqual(previous);
      expect(s).toBeGreaterThanOrEqual(0);
      previous = s;
    }
    expect(scoreOf(1.5)).toBe(0);
  });

  test('when a face sits on an edge, then match scores as a MODERATE name match and review at least 0.62, in any gallery', () => {
    expect(scoreOf(LIKENESS_THRESHOLDS.match)).toBeCloseTo(0.8, 10);
    expect(scoreOf(LIKENESS_THRESHOLDS.review)).toBeCloseTo(0.62, 10);
    for (const n of GALLERIES) {
      expect(scoreOf(matchDistanceOf(n))).toBeGreaterThanOrEqual(0.8 - 1e-9);
      expect(scoreOf(reviewDistanceOf(n))).toBeGreaterThanOrEqual(0.62 - 1e-9);
    }
  });
});

describe('normal tail', () => {
  test('when a probability is turned into a quantile and back, then it is the same, down to 1e-12', () => {
    for (const p of [1e-12, 1e-9, 1e-6, 1e-3, 0.02, 0.3, 0.5, 0.9, 0.999]) {
      expect(normalCdf(normalQuantile(p)) / p).toBeCloseTo(1, 5);
    }
    expect(normalQuantile(0.5)).toBeCloseTo(0, 6);
    expect(normalQuantile(1e-9)).toBeCloseTo(-5.9978, 3);
    expect(() => normalQuantile(0)).toThrow(RangeError);
  });

  test('when the lower tail of normal values is fitted, then it finds their mean and spread', () => {
    // Evenly spaced quantiles of normal(0.8, 0.1): the tail fit must give them back.
    const n = 20_000;
    const values = Array.from({ length: n }, (_, i) => 0.8 + 0.1 * normalQuantile((i + 0.5) / n));
    const fit = fitLowerTail(values, 0.01);
    expect(fit.mean).toBeCloseTo(0.8, 3);
    expect(fit.sd).toBeCloseTo(0.1, 3);
  });
});
