import { isAppError } from '@svc/errors';
import { PictureBudget } from '../../src/domain/face-matching/picture-budget';

// docs/spec/contracts.md §15 and §17: the picture workers are shared by platform, so one
// platform's many or heavy pictures wait behind each other, never in front of another's.

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const now = () => new Date('2026-11-29T00:00:00Z');

describe('PictureBudget', () => {
  it('when one platform has many pictures waiting, then another platform’s picture is taken next', async () => {
    const budget = new PictureBudget({ concurrency: 1, perPlatform: 10, now });
    const order: string[] = [];
    const gate = deferred();
    const first = budget.run('noisy', async () => {
      order.push('noisy-0');
      await gate.promise;
    });
    const noisy = [1, 2, 3].map((i) => budget.run('noisy', async () => void order.push(`noisy-${i}`)));
    const quiet = budget.run('quiet', async () => void order.push('quiet-0'));
    expect(budget.waiting).toBe(4);
    gate.resolve();
    await Promise.all([first, ...noisy, quiet]);
    expect(order).toEqual(['noisy-0', 'quiet-0', 'noisy-1', 'noisy-2', 'noisy-3']);
  });

  it('when a platform holds its share, then its next picture is refused with 429 and Retry-After, and others still run', async () => {
    const budget = new PictureBudget({ concurrency: 1, perPlatform: 2, now });
    const gate = deferred();
    const held = [budget.run('noisy', () => gate.promise), budget.run('noisy', () => gate.promise)];
    const refused = await budget.run('noisy', async () => 'ran').catch((err: unknown) => err);
    expect(isAppError(refused) && refused.code).toBe('RATE_LIMITED');
    expect(isAppError(refused) && refused.headers['Retry-After']).toBe('1');
    expect(isAppError(refused) && refused.details).toMatchObject({ limit: 2, remaining: 0, retryAfter: 1 });
    const other = budget.run('quiet', async () => 'quiet ran');
    gate.resolve();
    await Promise.all(held);
    await expect(other).resolves.toBe('quiet ran');
    await expect(budget.run('noisy', async () => 'again')).resolves.toBe('again');
  });

  it('when a waiting picture’s deadline passes, then it leaves the queue without running and frees its share', async () => {
    const budget = new PictureBudget({ concurrency: 1, perPlatform: 2, now });
    const gate = deferred();
    const running = budget.run('p', () => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const waiting = budget.run(
      'p',
      async () => {
        ran = true;
      },
      controller.signal,
    );
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(budget.waiting).toBe(0);
    gate.resolve();
    await running;
    expect(ran).toBe(false);
    await expect(budget.run('p', async () => 1)).resolves.toBe(1);
  });

  it('when work fails, then its worker and share are given back', async () => {
    const budget = new PictureBudget({ concurrency: 1, perPlatform: 1, now });
    await expect(budget.run('p', async () => Promise.reject(new Error('bad picture')))).rejects.toThrow(
      'bad picture',
    );
    await expect(budget.run('p', async () => 'next')).resolves.toBe('next');
  });
});
