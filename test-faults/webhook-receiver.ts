import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** One delivery attempt that reached the receiver. */
export interface ReceivedWebhook {
  /** The platform the endpoint belongs to (the path `/hooks/<platform>`). */
  platform: string;
  webhookId: string;
  /** The status the receiver answered. */
  answered: number;
  body: any;
  at: number;
}

/**
 * The platforms' side of the webhooks, on loopback: `/hooks/<platform>` records every attempt
 * with its `webhook-id` and answers 200, or 500 while `failing` is set (a platform outage);
 * `/images/<name>.png` serves the reference images the claims point to.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  failing: boolean;
  /**
   * Deliveries repeated after a 200. One repeat of a webhook first answered 200 inside
   * `inFlight` (the dispatcher killed before it could record that 200) is at-least-once delivery
   * (docs/spec/contracts.md §10), which the receiver deduplicates by `webhook-id`: not counted.
   */
  /**
   * Webhooks received again after one of their deliveries was answered 200; one repeat is excused
   * when that 200 fell in one of `inFlight` (the last moments of a dispatcher that was killed).
   */
  repeatedAfterSuccess(inFlight?: { from: number; to: number }[]): ReceivedWebhook[];
  close(): Promise<void>;
}

async function referenceImage(): Promise<Buffer> {
  const circles = Array.from({ length: 10 }, (_, i) => {
    const v = (i * 131 + 17) % 251;
    return `<circle cx="${(v * 7) % 128}" cy="${(v * 13) % 128}" r="${10 + (v % 30)}" fill="rgb(${v},${(v * 3) % 255},${(v * 5) % 255})"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"><rect width="100%" height="100%" fill="rgb(40,90,140)"/>${circles.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const image = await referenceImage();
  const received: ReceivedWebhook[] = [];
  const state = { failing: false };
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url.startsWith('/images/')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length }).end(image);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answered = state.failing ? 500 : 200;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push({
        platform: url.replace(/^\/hooks\//, ''),
        webhookId: String(req.headers['webhook-id'] ?? ''),
        answered,
        body,
        at: performance.now(),
      });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    repeatedAfterSuccess: (inFlight) => {
      const firstSuccess = new Map<string, number>();
      const excused = new Set<string>();
      const repeated: ReceivedWebhook[] = [];
      for (const hook of received) {
        const success = firstSuccess.get(hook.webhookId);
        if (success !== undefined) {
          const wasInFlight = (inFlight ?? []).some(
            (window) => success >= window.from && success <= window.to,
          );
          if (wasInFlight && !excused.has(hook.webhookId)) excused.add(hook.webhookId);
          else repeated.push(hook);
        }
        if (hook.answered === 200 && success === undefined) firstSuccess.set(hook.webhookId, hook.at);
      }
      return repeated;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
