import { severityOf } from '../../src/domain/severity';

describe('severityOf', () => {
  it.each([
    [0, 'low'],
    [99, 'low'],
    [100, 'medium'],
    [999, 'medium'],
    [1_000, 'high'],
    [9_999, 'high'],
    [10_000, 'critical'],
    [5_000_000, 'critical'],
  ])('when %i users at full confidence, then %s', (users, expected) => {
    expect(severityOf(users, 0.97)).toBe(expected);
  });

  it('when the confidence is below 0.85, then one step lower, never below low', () => {
    expect(severityOf(10_000, 0.84)).toBe('high');
    expect(severityOf(1_000, 0.5)).toBe('medium');
    expect(severityOf(100, 0.7)).toBe('low');
    expect(severityOf(5, 0.1)).toBe('low');
    expect(severityOf(10_000, 0.85)).toBe('critical');
  });
});
