import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startTestCluster, type TestCluster } from '@svc/test-kit';
import { newPlatformKey, ROOT } from './helpers';

// docs/spec/contracts.md §17 "No tenant degrades another", through two gateway replicas in cluster
// mode. One platform floods both replicas with the expensive inputs any account can send: pictures
// that take 3 s to arrive, 100-megapixel pictures, and batches of 100 identities naming slow and huge
// pictures (retrying after a 429 as the SDK does: the flood is of costly inputs, not of requests).
// Another platform's identity checks with a portrait, sent through both replicas meanwhile, keep
// their median latency within twice that of a quiet run and never see a 5xx. Before: the flood
// opened the breaker every platform shares (the other's checks answered 503 circuit open), and
// detection ran past the gateway's budgets (503 timeouts). Measured here: 103 ms quiet, 123-127 ms
// under the flood.
const FACES = path.join(ROOT, 'packages/face-engine/test/fixtures/faces');
const MEASURED_CHECKS = 40;

let cluster: TestCluster;
let images: ChildProcess;
let imageBase: string;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

beforeAll(async () => {
  images = spawn(
    process.execPath,
    [
      path.join(__dirname, 'fixtures/picture-server.mjs'),
      path.join(FACES, 'wh-obama-official-portrait-2012.jpg'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    images.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    images.once('exit', (code) => reject(new Error(`the picture server exited (${code})`)));
  });
  imageBase = `http://127.0.0.1:${port}`;
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'detection'],
    gatewayReplicas: 2,
    env: { SVC_ALLOW_PRIVATE_FETCH: 'true' },
    output: 'silent',
  });
}, 120_000);

afterAll(async () => {
  await cluster?.teardown();
  images?.kill('SIGTERM');
});

interface Answer {
  status: number;
  ms: number;
  /** The error code of an answer over 499, to say what went wrong. */
  code?: string;
}

async function post(base: string, key: string, route: string, body: unknown): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status < 500) return { status: res.status, ms };
  const code = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
  return { status: res.status, ms, code: `${code?.code}: ${code?.message}` };
}

/** The quiet platform's checks, one after another, alternating replicas. */
async function measure(key: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < MEASURED_CHECKS; i += 1) {
    const base = cluster.gatewayUrls[i % cluster.gatewayUrls.length] ?? cluster.gatewayUrl;
    answers.push(
      await post(base, key, '/v1/svc/identity/check', {
        name: `Quiet Avatar ${i % 7}`,
        imageUrl: `${imageBase}/portrait?${i % 5}`,
      }),
    );
  }
  return answers;
}

describe('one platform floods, another is not hurt (two gateway replicas)', () => {
  it('when a platform sends slow and huge pictures and batches, then another platform’s checks keep their latency and see no 5xx', async () => {
    expect(cluster.gatewayUrls).toHaveLength(2);
    const quietKey = await newPlatformKey(cluster, 'Quiet platform');
    const noisyKey = await newPlatformKey(cluster, 'Noisy platform');

    await measure(quietKey); // warm both replicas' caches and connections
    const quiet = await measure(quietKey);
    expect(quiet.filter((a) => a.status !== 200)).toEqual([]);

    const flood: Promise<Answer>[] = [];
    const floodUntil = performance.now() + 20_000;
    let stop = false;
    const floodLoop = async (base: string, body: () => unknown, route = '/v1/svc/identity/check') => {
      while (!stop && performance.now() < floodUntil) {
        const answer = post(base, noisyKey, route, body()).catch(() => ({ status: 0, ms: 0 }));
        flood.push(answer);
        // As the SDK does: a 429 is retried after a pause. The flood is of costly inputs, not of
        // requests (a request flood is the rate limit's and the network's to refuse).
        if ((await answer).status === 429) await new Promise((resolve) => setTimeout(resolve, 1000));
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    let n = 0;
    const loops: Promise<void>[] = [];
    for (const base of cluster.gatewayUrls) {
      for (let i = 0; i < 2; i += 1) {
        loops.push(
          floodLoop(base, () => ({ name: `Noisy ${(n += 1)}`, imageUrl: `${imageBase}/slow?${n}` })),
        );
        loops.push(
          floodLoop(base, () => ({ name: `Noisy ${(n += 1)}`, imageUrl: `${imageBase}/huge?${n}` })),
        );
      }
      loops.push(
        floodLoop(
          base,
          () => ({
            identities: Array.from({ length: 100 }, (_, j) => ({
              name: `Noisy Batch ${(n += 1)}`,
              imageUrl: `${imageBase}/${j % 2 === 0 ? 'slow' : 'huge'}?${n}`,
            })),
          }),
          '/v1/svc/identity/check/batch',
        ),
      );
    }
    // The flood is under way before the measurement starts.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const loud = await measure(quietKey);
    stop = true;
    await Promise.all(loops);
    const floodAnswers = await Promise.all(flood);

    const quietMedian = median(quiet.map((a) => a.ms));
    const loudMedian = median(loud.map((a) => a.ms));
    const tally = (answers: Answer[]) =>
      JSON.stringify(
        answers.reduce<Record<string, number>>((acc, a) => {
          const key = a.code === undefined ? String(a.status) : `${a.status} ${a.code}`;
          return { ...acc, [key]: (acc[key] ?? 0) + 1 };
        }, {}),
      );
    const detectionMetrics = await fetch(`${cluster.processes.get('detection')?.url}/metrics`).then((r) =>
      r.text(),
    );
    const lag = detectionMetrics
      .split('\n')
      .filter((line) => /^nodejs_eventloop_lag_(max|p99)_seconds/.test(line))
      .join('; ');
    process.stdout.write(`detection's event loop: ${lag}\n`);
    process.stdout.write(
      `noisy neighbours: quiet median ${quietMedian.toFixed(1)} ms, under the flood ${loudMedian.toFixed(1)} ms; ` +
        `flood answers ${tally(floodAnswers)}; the quiet platform's under the flood ${tally(loud)}\n`,
    );
    // The flood did reach the services (and was answered, refused or throttled, not crashed).
    expect(floodAnswers.length).toBeGreaterThan(10);
    expect(floodAnswers.filter((a) => a.status >= 500)).toEqual([]);
    expect(loud.filter((a) => a.status !== 200)).toEqual([]);
    expect(loudMedian).toBeLessThanOrEqual(2 * quietMedian);
  }, 180_000);
});
