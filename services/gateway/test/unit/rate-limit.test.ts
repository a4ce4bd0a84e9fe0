import { decide, windowOf } from '../../src/domain/rate-limit';
import { limitsFor } from '../../src/domain/plans';

const now = new Date('2026-11-22T10:15:42.500Z');
const minute = windowOf(now, 60);
const day = windowOf(now, 86_400);

describe('rate-limit windows and decisions', () => {
  it('when the window of an instant is taken, then minute and UTC day windows align', () => {
    expect(minute.start.toISOString()).toBe('2026-11-22T10:15:00.000Z');
    expect(minute.end.toISOString()).toBe('2026-11-22T10:16:00.000Z');
    expect(day.start.toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(day.end.toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it('when under every limit, then the request passes with per-minute headers', () => {
    const d = decide(now, { limit: 60, count: 10, window: minute }, [
      { limit: 1000, count: 10, window: day },
    ]);
    expect(d.allowed).toBe(true);
    expect(d.headers).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '50',
      'X-RateLimit-Reset': String(minute.end.getTime() / 1000),
    });
    expect(d.refusal).toBeUndefined();
  });

  it('when the count reaches the limit exactly, then it still passes with 0 remaining', () => {
    const d = decide(now, { limit: 60, count: 60, window: minute }, []);
    expect(d.allowed).toBe(true);
    expect(d.headers['X-RateLimit-Remaining']).toBe('0');
  });

  it('when the minute limit is passed, then it is refused with limit, resetAt and retryAfter', () => {
    const d = decide(now, { limit: 60, count: 61, window: minute }, [
      { limit: 1000, count: 61, window: day },
    ]);
    expect(d.allowed).toBe(false);
    expect(d.refusal).toEqual({
      limit: 60,
      remaining: 0,
      resetAt: '2026-11-22T10:16:00.000Z',
      retryAfter: 18,
    });
  });

  it('when the day limit is passed, then the day bucket refuses and says when it resets', () => {
    const d = decide(now, { limit: 60, count: 1, window: minute }, [
      { limit: 1000, count: 1001, window: day },
    ]);
    expect(d.allowed).toBe(false);
    expect(d.refusal?.limit).toBe(1000);
    expect(d.refusal?.resetAt).toBe('2026-11-23T00:00:00.000Z');
    expect(d.headers['X-RateLimit-Remaining']).toBe('0');
    expect(d.headers['X-RateLimit-Reset']).toBe(String(day.end.getTime() / 1000));
  });

  it('when plans are looked up, then they carry the limits of the spec and enterprise its own', () => {
    expect(limitsFor('sandbox', null)).toEqual({ perMinute: 60, perDay: 1000 });
    expect(limitsFor('basic', null)).toEqual({ perMinute: 300, perDay: 50_000 });
    expect(limitsFor('standard', { perMinute: 5, perDay: 5 })).toEqual({ perMinute: 1000, perDay: 500_000 });
    expect(limitsFor('enterprise', { perMinute: 7, perDay: 70 })).toEqual({ perMinute: 7, perDay: 70 });
  });
});
