import { ManualClock, OffsetClock } from '../../src';

const START = '2026-03-01T12:00:00.000Z';
const HOUR = 3_600_000;

describe('OffsetClock', () => {
  it('when created without an offset, then it reads what its base reads', () => {
    const base = new ManualClock(START);

    expect(new OffsetClock(base).now().toISOString()).toBe(START);
    expect(new OffsetClock(base).offset).toBe(0);
  });

  it('when advanced, then it moves ahead and its base does not', () => {
    const base = new ManualClock(START);
    const sandbox = new OffsetClock(base);

    expect(sandbox.advance(6 * HOUR).toISOString()).toBe('2026-03-01T18:00:00.000Z');
    expect(sandbox.offset).toBe(6 * HOUR);
    expect(base.now().toISOString()).toBe(START);
  });

  it('when two offset clocks share a base, then advancing one leaves the other where it was', () => {
    const base = new ManualClock(START);
    const platformA = new OffsetClock(base);
    const platformB = new OffsetClock(base);
    platformA.advance(24 * HOUR);

    expect(platformA.now().toISOString()).toBe('2026-03-02T12:00:00.000Z');
    expect(platformB.now().toISOString()).toBe(START);
  });

  it('when its base moves, then it follows at the same pace, keeping its offset', () => {
    const base = new ManualClock(START);
    const sandbox = new OffsetClock(base, HOUR);
    base.advance(30_000);

    expect(sandbox.now().toISOString()).toBe('2026-03-01T13:00:30.000Z');
  });

  it('when advanced several times, then the offsets add up', () => {
    const sandbox = new OffsetClock(new ManualClock(START));
    sandbox.advance(1_000);
    sandbox.advance(2_500);

    expect(sandbox.offset).toBe(3_500);
    expect(sandbox.now().toISOString()).toBe('2026-03-01T12:00:03.500Z');
  });

  it('when asked to move backwards, then it refuses and keeps its offset', () => {
    const sandbox = new OffsetClock(new ManualClock(START), HOUR);

    expect(() => sandbox.advance(-1)).toThrow(new RangeError('A clock only moves forward'));
    expect(sandbox.offset).toBe(HOUR);
  });

  it('when created with a negative or non-finite offset, or advanced by NaN, then it refuses', () => {
    const base = new ManualClock(START);
    const sandbox = new OffsetClock(base);

    expect(() => new OffsetClock(base, -HOUR)).toThrow(RangeError);
    expect(() => new OffsetClock(base, Number.NaN)).toThrow(RangeError);
    expect(() => sandbox.advance(Number.NaN)).toThrow(RangeError);
    expect(sandbox.now().toISOString()).toBe(START);
  });
});
