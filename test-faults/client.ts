import { randomUUID } from 'node:crypto';

// The workload's HTTP client, written as a well-behaved integrator would: every write carries an
// Idempotency-Key kept across its retries; a 503, 502, 504, 500, 429, a 409 "still being
// processed", a reset connection or a timed-out attempt is retried with backoff (Retry-After
// honoured, capped) until the request's own deadline. Every answer is recorded, so the suite can
// say what was acknowledged, what was refused and whether any 500 was seen.

/** One request as the client saw it, across its attempts. */
export interface RequestRecord {
  window: string;
  method: string;
  path: string;
  idempotencyKey?: string;
  /** Every attempt's status (0: no answer: reset, refused or timed out). */
  statuses: number[];
  /** The final answer's status (0 when the deadline passed without one). */
  status: number;
  body: any;
  acknowledged: boolean;
  /** The last answer was 409 `answer_lost`: the write was carried out, its answer is gone. */
  answerLost?: boolean;
  startedAt: number;
  endedAt: number;
  /** The error of the last unanswered attempt, when there was one. */
  lastError?: string;
  /** Each attempt answered 5xx: when (seconds since the suite began) and what the body said. */
  failures?: {
    at: number;
    status: number;
    said: string;
    retryAfter: string | null;
    /** The answer's X-Request-Id: the services' log lines about it explain the answer. */
    requestId: string | null;
  }[];
}

export interface ClientOptions {
  /** Deadline of one attempt (default 10 s). */
  attemptTimeoutMs?: number;
  /** Deadline of a request across its retries (default 150 s: longer than a stalled dependency). */
  requestDeadlineMs?: number;
}

const RETRIED = new Set([0, 500, 502, 503, 504, 429]);

function retryDelayMs(attempt: number, retryAfter: string | null): number {
  const backoff = Math.min(4000, 250 * 2 ** Math.min(attempt, 5));
  const told = retryAfter === null ? Number.NaN : Number(retryAfter) * 1000;
  // Honour Retry-After, but never sleep longer than 5 s at a time: a client polls again.
  const wait = Number.isFinite(told) && told > 0 ? Math.min(told, 5000) : backoff;
  return wait * (0.8 + Math.random() * 0.4);
}

export class WorkloadClient {
  /** Every request made, in the order they finished. */
  readonly records: RequestRecord[] = [];
  /** The label of the fault the requests belong to (the table's row). */
  window = 'setup';
  private readonly attemptTimeoutMs: number;
  private readonly requestDeadlineMs: number;
  private stopping = false;

  constructor(
    private readonly baseUrl: () => string,
    options: ClientOptions = {},
  ) {
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.requestDeadlineMs = options.requestDeadlineMs ?? 150_000;
  }

  /** Gives up the retries of requests in flight (teardown). */
  abandon(): void {
    this.stopping = true;
  }

  /** A write: POST/PATCH/DELETE with an Idempotency-Key kept across retries. */
  write(token: string, method: string, path: string, body?: unknown): Promise<RequestRecord> {
    return this.send(token, method, path, body, randomUUID());
  }

  /** A read, retried like a write. */
  read(token: string, path: string): Promise<RequestRecord> {
    return this.send(token, 'GET', path, undefined, undefined);
  }

  private async send(
    token: string,
    method: string,
    path: string,
    body: unknown,
    idempotencyKey: string | undefined,
  ): Promise<RequestRecord> {
    const record: RequestRecord = {
      window: this.window,
      method,
      path,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      statuses: [],
      status: 0,
      body: undefined,
      acknowledged: false,
      startedAt: performance.now(),
      endedAt: 0,
    };
    const deadline = record.startedAt + this.requestDeadlineMs;
    for (let attempt = 0; ; attempt++) {
      let retryAfter: string | null = null;
      try {
        const response = await fetch(this.baseUrl() + path, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(this.attemptTimeoutMs),
        });
        const text = await response.text();
        record.status = response.status;
        record.statuses.push(response.status);
        try {
          record.body = text === '' ? undefined : JSON.parse(text);
        } catch {
          record.body = text;
        }
        retryAfter = response.headers.get('retry-after');
        if (response.status >= 500) {
          const error = record.body?.error;
          const said = error === undefined ? String(text).slice(0, 120) : `${error.code}: ${error.message}`;
          (record.failures ??= []).push({
            at: performance.now() / 1000,
            status: response.status,
            said,
            retryAfter,
            requestId: response.headers.get('x-request-id'),
          });
        }
        const conflict = response.status === 409 && record.body?.error?.code === 'IDEMPOTENCY_CONFLICT';
        // The write was carried out but its answer died with the process that made it (ADR 0011):
        // retrying is pointless; the caller reads the resource instead.
        record.answerLost = conflict && record.body?.error?.details?.reason === 'answer_lost';
        const inProgress = conflict && !record.answerLost && idempotencyKey;
        if (!RETRIED.has(response.status) && !inProgress) break;
      } catch (err) {
        record.status = 0;
        record.statuses.push(0);
        record.lastError = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      const wait = retryDelayMs(attempt, retryAfter);
      if (this.stopping || performance.now() + wait > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    record.acknowledged = record.status >= 200 && record.status < 300;
    record.endedAt = performance.now();
    this.records.push(record);
    return record;
  }
}
