/** The source of time. Every timed behaviour reads one, never `Date.now()` directly. */
export interface Clock {
  now(): Date;
}

/** The machine's clock. */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

export const systemClock: Clock = new SystemClock();

// NaN or Infinity would make every later now() an Invalid Date, silently: refuse them where they enter.
function instantOf(value: Date | string | number): number {
  const ms = new Date(value).getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`Not a valid instant: ${String(value)}`);
  return ms;
}

function forwardStep(ms: number): number {
  if (!Number.isFinite(ms)) throw new RangeError(`Not a finite number of milliseconds: ${ms}`);
  if (ms < 0) throw new RangeError('A clock only moves forward');
  return ms;
}

/** A clock that stands still until told to move: for tests. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string | number = '2026-01-01T00:00:00.000Z') {
    this.current = instantOf(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): Date {
    this.current += forwardStep(ms);
    return this.now();
  }

  /** Moves the clock to an instant at or after the current one (tests only). */
  set(to: Date | string | number): void {
    const target = instantOf(to);
    if (target < this.current) throw new RangeError('A clock only moves forward');
    this.current = target;
  }
}

/** A clock running at the pace of `base`, shifted by an offset that only grows (a sandbox clock). */
export class OffsetClock implements Clock {
  private offsetMs: number;

  constructor(
    private readonly base: Clock,
    offsetMs = 0,
  ) {
    this.offsetMs = forwardStep(offsetMs);
  }

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  /** Moves this clock forward by `ms` milliseconds, leaving the base untouched. */
  advance(ms: number): Date {
    this.offsetMs += forwardStep(ms);
    return this.now();
  }

  /** How far ahead of its base this clock runs, in milliseconds. */
  get offset(): number {
    return this.offsetMs;
  }
}

export * from './sandbox-clock';
