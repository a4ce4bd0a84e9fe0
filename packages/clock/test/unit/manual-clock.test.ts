import { ManualClock, systemClock } from '../../src';

const START = '2026-03-01T12:00:00.000Z';

describe('ManualClock', () => {
  it('when created without a start, then it reads 2026-01-01T00:00:00.000Z and stands still', () => {
    const clock = new ManualClock();

    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('when created from a string, a number or a Date, then it reads that instant', () => {
    const instant = new Date(START);

    expect(new ManualClock(START).now()).toEqual(instant);
    expect(new ManualClock(instant.getTime()).now()).toEqual(instant);
    expect(new ManualClock(instant).now()).toEqual(instant);
  });

  it('when advanced, then it moves by exactly that many milliseconds and returns the new time', () => {
    const clock = new ManualClock(START);

    expect(clock.advance(90_000).toISOString()).toBe('2026-03-01T12:01:30.000Z');
    expect(clock.advance(0).toISOString()).toBe('2026-03-01T12:01:30.000Z');
    expect(clock.now().toISOString()).toBe('2026-03-01T12:01:30.000Z');
  });

  it('when asked to move backwards, then it refuses with a RangeError and keeps its time', () => {
    const clock = new ManualClock(START);

    expect(() => clock.advance(-1)).toThrow(new RangeError('A clock only moves forward'));
    expect(clock.now().toISOString()).toBe(START);
  });

  it('when advanced by NaN or Infinity, then it refuses and its time stays a valid date', () => {
    const clock = new ManualClock(START);

    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(clock.now().toISOString()).toBe(START);
  });

  it('when set to a later instant, then it reads that instant', () => {
    const clock = new ManualClock(START);
    clock.set('2026-03-02T00:00:00.000Z');

    expect(clock.now().toISOString()).toBe('2026-03-02T00:00:00.000Z');
  });

  it('when set to the current instant, then nothing changes and nothing is thrown', () => {
    const clock = new ManualClock(START);
    clock.set(START);

    expect(clock.now().toISOString()).toBe(START);
  });

  it('when set to an earlier instant, then it refuses and keeps its time', () => {
    const clock = new ManualClock(START);

    expect(() => clock.set('2026-02-28T00:00:00.000Z')).toThrow(new RangeError('A clock only moves forward'));
    expect(clock.now().toISOString()).toBe(START);
  });

  it('when created or set with something that is not a date, then it refuses', () => {
    const clock = new ManualClock(START);

    expect(() => new ManualClock('next tuesday')).toThrow(RangeError);
    expect(() => clock.set('soon')).toThrow(RangeError);
    expect(clock.now().toISOString()).toBe(START);
  });

  it('when the caller changes the Date it was given, then the clock does not move', () => {
    const clock = new ManualClock(START);
    const read = clock.now();
    read.setFullYear(1999);

    expect(clock.now().toISOString()).toBe(START);
  });
});

describe('systemClock', () => {
  it("when read, then it follows the machine's time", () => {
    const before = Date.now();
    const read = systemClock.now().getTime();
    const after = Date.now();

    expect(read).toBeGreaterThanOrEqual(before);
    expect(read).toBeLessThanOrEqual(after);
  });
});
