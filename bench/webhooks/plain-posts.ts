/**
 * The same-run baseline of the webhooks bench: plain signed POSTs from this process to the same
 * receivers, with no database and no queue. The same bodies, signed with Standard Webhooks
 * headers (one secret per endpoint), sent with undici's pooled Agent (keep-alive), as many
 * endpoints served at once as the dispatcher's WEBHOOK_CONCURRENCY and one POST in flight per
 * endpoint, in order: the dispatcher's own shape of work, minus its bookkeeping.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { generateSecret, webhookHeaders } from '@svc/webhook-dispatcher';

export interface PlainPost {
  url: string;
  id: string;
  body: string;
}

export interface PlainPostsResult {
  posts: number;
  seconds: number;
  perSecond: number;
  /** This process's CPU (user + system) during the pass, per POST, in µs: the sender's and the receivers'. */
  cpuMicrosPerPost: number;
}

export async function plainSignedPosts(posts: PlainPost[], concurrency: number): Promise<PlainPostsResult> {
  const byUrl = new Map<string, PlainPost[]>();
  for (const post of posts) byUrl.set(post.url, [...(byUrl.get(post.url) ?? []), post]);
  const secrets = new Map([...byUrl.keys()].map((url) => [url, generateSecret()]));
  const queue = [...byUrl.entries()];
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const serve = async (): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [url, ofEndpoint] = next;
      for (const post of ofEndpoint) {
        const response = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'bench-plain-posts/1',
            ...webhookHeaders({
              id: post.id,
              timestamp: new Date(),
              body: post.body,
              secrets: [secrets.get(url) as string],
            }),
          },
          body: post.body,
        });
        await response.body.text();
        if (response.statusCode < 200 || response.statusCode >= 300)
          throw new Error(`baseline POST to ${url}: HTTP ${response.statusCode}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => serve()));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  await agent.close();
  return {
    posts: posts.length,
    seconds,
    perSecond: posts.length / seconds,
    cpuMicrosPerPost: (cpu.user + cpu.system) / posts.length,
  };
}
