import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { createLogger } from '@svc/logger';
import { createService, type Service } from '@svc/service-kit';
import { sleep } from '@svc/test-kit';
import { JWT_SECRET, startHarness, type Harness } from '../fixtures/gateway-harness';

/** A detection whose identity check can be made to hang (a stalled process) and to recover. */
async function startStallableDetection() {
  let stalled = false;
  const waiting = new Set<() => void>();
  const service: Service = createService({
    name: 'detection',
    logger: createLogger('test', { level: 'silent' }),
    internalJwtSecret: JWT_SECRET,
    routes: (router) => {
      router.post('/v1/svc/identity/check', async (req: Request, res: Response) => {
        // One platform's slow input (a picture that takes long to arrive) hangs only its own check.
        const slowInput = (req.body as { name?: string }).name === 'Slow Input';
        if (stalled || slowInput) await new Promise<void>((resolve) => waiting.add(resolve));
        res.json({ isClaimed: false, isBoxed: false, action: 'ALLOW' });
      });
    },
  });
  const { url } = await service.listen(0, '127.0.0.1');
  return {
    url,
    stall: () => {
      stalled = true;
    },
    recover: () => {
      stalled = false;
      for (const resolve of waiting) resolve();
      waiting.clear();
    },
    /** Lets the hanging slow inputs go (their callers gave up long ago). */
    release: () => {
      for (const resolve of waiting) resolve();
      waiting.clear();
    },
    stop: () => service.stop(1000),
  };
}

let h: Harness;
let detection: Awaited<ReturnType<typeof startStallableDetection>>;
let key: string;

beforeAll(async () => {
  detection = await startStallableDetection();
  // The declared routes: the identity check carries its own budget from the contracts.
  h = await startHarness({ serviceUrls: { DETECTION_URL: detection.url } });
  ({ key } = await h.platform('enterprise'));
});
afterAll(async () => {
  detection.recover();
  await h.stop();
  await detection.stop();
});

const check = async (name = 'Jane Roe', as = key) => {
  const started = performance.now();
  const answer = await h.call(as, 'POST', '/v1/svc/identity/check', { name });
  return { ...answer, ms: performance.now() - started };
};

describe('the identity check when detection stalls', () => {
  it('when detection hangs, then a check answers 503 within 2 s, the circuit opens within 5 s, and closes within 5 s of recovery', async () => {
    expect((await check()).status).toBe(200);

    detection.stall();
    const stalledAt = performance.now();
    const first = await check();
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(first.headers.get('retry-after')).not.toBeNull();
    expect(first.ms).toBeLessThan(2000);

    // One client checking in a row: the circuit opens within 5 s of the hang.
    let opened: Awaited<ReturnType<typeof check>> | undefined;
    while (opened === undefined && performance.now() - stalledAt < 8000) {
      const answer = await check();
      expect(answer.status).toBe(503);
      expect(answer.ms).toBeLessThan(2000);
      if (answer.body.error.details?.reason === 'circuit_open') opened = answer;
    }
    expect(opened).toBeDefined();
    const openedAfterMs = performance.now() - stalledAt;
    expect(openedAfterMs).toBeLessThan(5000);
    // An open circuit answers at once, telling the client when to come back.
    expect(opened?.ms).toBeLessThan(200);
    expect(Number(opened?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    detection.recover();
    const recoveredAt = performance.now();
    let healthy = false;
    while (!healthy && performance.now() - recoveredAt < 8000) {
      healthy = (await check()).status === 200;
      if (!healthy) await sleep(100);
    }
    expect(healthy).toBe(true);
    const closedAfterMs = performance.now() - recoveredAt;
    expect(closedAfterMs).toBeLessThan(5000);
    process.stdout.write(
      `check budget: first 503 after ${Math.round(first.ms)} ms, circuit open after ${Math.round(openedAfterMs)} ms, closed ${Math.round(closedAfterMs)} ms after recovery\n`,
    );
  }, 30_000);
});

describe('one platform’s slow inputs (docs/spec/contracts.md §17)', () => {
  it('when one platform’s checks time out, then its own circuit opens and another platform’s checks never see a 503', async () => {
    const { key: other } = await h.platform('enterprise');
    const slow: Promise<Awaited<ReturnType<typeof check>>>[] = [];
    const others: Awaited<ReturnType<typeof check>>[] = [];
    // Three slow checks at once, answered 503 when the gateway's budget runs out: before, they
    // opened the circuit every platform shares (3 of 3 calls failed), and the other platform's
    // next checks were refused with 503 circuit open.
    for (let i = 0; i < 3; i += 1) slow.push(check('Slow Input'));
    await Promise.all(slow);
    const started = performance.now();
    while (performance.now() - started < 4000) {
      others.push(await check('Jane Roe', other));
      // More slow checks meanwhile, but none in the last 2.5 s: each is answered before the stub lets go.
      if (others.length % 5 === 0 && performance.now() - started < 1500) slow.push(check('Slow Input'));
      await sleep(100);
    }
    detection.release();
    const slowAnswers = await Promise.all(slow);
    expect(others.filter((a) => a.status !== 200)).toEqual([]);
    expect(others.length).toBeGreaterThan(20);
    expect(slowAnswers.every((a) => a.status === 503)).toBe(true);
    // The slow platform's own circuit opened: its later checks are refused at once.
    const refusedAtOnce = slowAnswers.filter((a) => a.body.error.details?.reason === 'circuit_open');
    expect(refusedAtOnce.length).toBeGreaterThan(0);
    expect(Math.max(...refusedAtOnce.map((a) => a.ms))).toBeLessThan(200);
  }, 30_000);
});
