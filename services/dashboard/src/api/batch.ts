import { currentCsrfToken } from './http';

// A page's reads, sent together (issue #32, "Budgets"; docs/spec/contracts.md §17). A page asks
// for what each of its parts shows, each part on its own; the reads of the public API asked in the
// same turn of the event loop go as one POST /dashboard/api/batch, counted once against the
// session's budget, and each read gets its own answer back as if it had been sent alone. A box
// page made twelve calls; it now makes two or three.

/** Where the public API's reads are: what the batch carries (the gateway's public families). */
const PUBLIC_PREFIXES = ['/v1/svc/', '/identity/', '/licensing/', '/revenue/', '/enforcement/'];
/** Served to anyone and cached by the browser: not worth a batch. */
const NOT_BATCHED = new Set(['/v1/svc/openapi.json']);
/** The gateway's MAX_BATCH_READS. */
export const MAX_BATCH_READS = 20;
export const BATCH_PATH = '/dashboard/api/batch';

interface Pending {
  path: string;
  request: Request;
  resolve: (response: Response) => void;
  reject: (error: unknown) => void;
}

interface BatchAnswer {
  status: number;
  retryAfter?: number;
  body: unknown;
}

/** A read's answer as a Response, exactly as the read alone would have got it. */
export function responseOf(answer: BatchAnswer): Response {
  const headers = new Headers();
  if (answer.retryAfter !== undefined) headers.set('Retry-After', String(answer.retryAfter));
  const empty = answer.status === 204 || answer.status === 304 || answer.body === null;
  if (empty) return new Response(null, { status: answer.status, headers });
  if (typeof answer.body === 'string') {
    headers.set('Content-Type', 'text/plain; charset=utf-8');
    return new Response(answer.body, { status: answer.status, headers });
  }
  headers.set('Content-Type', 'application/json');
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers });
}

function isBatchable(request: Request, origin: string): boolean {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  if (url.origin !== origin || NOT_BATCHED.has(url.pathname)) return false;
  return PUBLIC_PREFIXES.some((prefix) => url.pathname.startsWith(prefix));
}

/**
 * A fetch for the typed client: a read of the public API waits for the end of the current turn,
 * then goes with the others asked in that turn. Anything else, a read alone, or reads before the
 * session's CSRF token is known (the batch is a POST) go as they are.
 */
export function batchingFetch(
  send: (input: Request | string, init?: RequestInit) => Promise<Response>,
  origin: string,
): (request: Request) => Promise<Response> {
  let queue: Pending[] = [];
  let scheduled = false;

  async function sendBatch(reads: Pending[], csrf: string): Promise<void> {
    let batch: Response;
    try {
      batch = await send(`${origin}${BATCH_PATH}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: JSON.stringify({ requests: reads.map((read) => ({ path: read.path })) }),
      });
    } catch (error) {
      for (const read of reads) read.reject(error);
      return;
    }
    if (batch.ok) {
      const answers = ((await batch.json()) as { data: { responses: BatchAnswer[] } }).data.responses;
      reads.forEach((read, index) => {
        const answer = answers[index];
        if (answer === undefined) read.reject(new Error('The batch answered fewer reads than it was sent'));
        else read.resolve(responseOf(answer));
      });
      return;
    }
    // A refusal of the whole batch (a spent budget, an ended session) is each read's answer.
    const text = await batch.text();
    for (const read of reads) {
      read.resolve(new Response(text, { status: batch.status, headers: batch.headers }));
    }
  }

  function flush(): void {
    scheduled = false;
    const reads = queue;
    queue = [];
    const csrf = currentCsrfToken();
    if (reads.length === 1 || csrf === undefined) {
      for (const read of reads) send(read.request).then(read.resolve, read.reject);
      return;
    }
    for (let start = 0; start < reads.length; start += MAX_BATCH_READS) {
      void sendBatch(reads.slice(start, start + MAX_BATCH_READS), csrf);
    }
  }

  return (request: Request) => {
    if (!isBatchable(request, origin)) return send(request);
    const url = new URL(request.url);
    return new Promise<Response>((resolve, reject) => {
      queue.push({ path: `${url.pathname}${url.search}`, request, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    });
  };
}
