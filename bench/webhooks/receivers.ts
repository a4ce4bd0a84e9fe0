import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

// The bench's receivers (one node:http server per endpoint) and its arithmetic.

/** The baseline's POSTs carry this webhook-id prefix: the receivers count them apart. */
export const BASELINE_ID = 'baseline_';

export function intFromEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

export interface Receiver {
  platformId: string;
  slow: boolean;
  server: Server;
  url: string;
  /** webhook-id -> how many times it arrived. */
  counts: Map<string, number>;
  /** Event index -> when it first arrived (performance.now()); filled from arrivals after the burst. */
  firstArrival: Map<number, number>;
  /** The body of each first arrival (the baseline sends them again), and when it arrived. */
  bodies: string[];
  arrivedAt: number[];
  unsigned: number;
  baselinePosts: number;
}

export async function startReceiver(platformId: string, slow: boolean, slowMs: number): Promise<Receiver> {
  const receiver: Omit<Receiver, 'server' | 'url'> = {
    platformId,
    slow,
    counts: new Map(),
    firstArrival: new Map(),
    bodies: [],
    arrivedAt: [],
    unsigned: 0,
    baselinePosts: 0,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const id = req.headers['webhook-id'];
      if (typeof id !== 'string' || typeof req.headers['webhook-signature'] !== 'string') {
        receiver.unsigned += 1;
      } else if (id.startsWith(BASELINE_ID)) {
        receiver.baselinePosts += 1;
      } else {
        const seen = receiver.counts.get(id) ?? 0;
        receiver.counts.set(id, seen + 1);
        if (seen === 0) {
          // Kept as it came: which event it is (JSON.parse) is worked out after the burst, so the
          // receivers spend no more on an arrival than on one of the baseline's POSTs.
          receiver.bodies.push(Buffer.concat(chunks).toString('utf8'));
          receiver.arrivedAt.push(at);
        }
      }
      if (slow) setTimeout(() => res.writeHead(200).end('ok'), slowMs);
      else res.writeHead(200).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  // The same object the handler counts on (a spread copy would freeze its number fields).
  return Object.assign(receiver, { server, url: `http://127.0.0.1:${port}/hooks` });
}

export async function closeReceiver(receiver: Receiver): Promise<void> {
  receiver.server.closeAllConnections();
  await new Promise((resolve) => receiver.server.close(resolve));
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function latencyLine(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v: number) => `${v.toFixed(0)} ms`.padStart(9);
  return (
    `${label.padEnd(22)} n=${String(sorted.length).padStart(5)}  p50 ${f(percentile(sorted, 50))}  ` +
    `p90 ${f(percentile(sorted, 90))}  p99 ${f(percentile(sorted, 99))}  max ${f(percentile(sorted, 100))}`
  );
}

/** The median of `values` (the lower middle one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}
