import type { Response } from 'express';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { IdempotencyKeyStore, KeyAttempt, StoredAnswer } from './idempotency.store';

// The answers of the idempotency middleware (idempotency.middleware.ts): what it keeps of a route's
// answer, how it replays one, refuses a key, or records an answer after a database blip.

/** The header a replayed answer carries. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
// What of an answer's headers is kept with it and replayed.
const KEPT_HEADERS = ['content-type', 'location'];
const RECORD_RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 16000, 16000];

const PROVISIONAL = Symbol('provisional answer');

/**
 * The answer of a route whose work goes on after a write it has committed (an HTTP call, a second
 * transaction), for the case where it goes no further: e.g. "stored, evaluation pending". It
 * commits with that write under the request's Idempotency-Key, so a retry after a crash in between
 * gets it instead of 409 `answer_lost`; the route's final answer replaces it. Without a key, nothing.
 */
export function provisionalAnswer(res: Response, status: number, body: unknown): void {
  const answer: StoredAnswer = {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  };
  (res.locals as Record<symbol, StoredAnswer>)[PROVISIONAL] = answer;
}

export function provisionalOf(res: Response): StoredAnswer | undefined {
  return (res.locals as Record<symbol, StoredAnswer | undefined>)[PROVISIONAL];
}

/** The route's answer said done, but its write rolled back: a 503, and a retry carries it out. */
export function answerUncommitted(res: Response, end: (...args: unknown[]) => Response): void {
  const error = new AppError('SERVICE_UNAVAILABLE', 'The write could not be committed; retry the request', {
    headers: { 'Retry-After': '1' },
  });
  const body = JSON.stringify(error.toBody());
  res.statusCode = 503;
  res.removeHeader('location');
  res.setHeader('Retry-After', '1');
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  end(body);
}

export function conflict(reason: 'different_request' | 'in_progress' | 'answer_lost'): AppError {
  switch (reason) {
    case 'different_request':
      return new AppError(
        'IDEMPOTENCY_CONFLICT',
        'This Idempotency-Key was already used with a different request',
        { details: { reason } },
      );
    case 'in_progress':
      return new AppError(
        'IDEMPOTENCY_CONFLICT',
        'A request with this Idempotency-Key is still being processed; retry shortly',
        { details: { reason }, headers: { 'Retry-After': '1' } },
      );
    case 'answer_lost':
      return new AppError(
        'IDEMPOTENCY_CONFLICT',
        'A request with this Idempotency-Key was carried out but its answer was lost; read the resource instead of retrying',
        { details: { reason } },
      );
  }
}

export function replay(res: Response, answer: StoredAnswer): void {
  res.status(answer.status).set(answer.headers).set(IDEMPOTENT_REPLAYED_HEADER, 'true');
  res.end(answer.body);
}

export function answerOf(res: Response, chunk: unknown): StoredAnswer {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  let body = '';
  if (typeof chunk === 'string') body = chunk;
  else if (Buffer.isBuffer(chunk)) body = chunk.toString('utf8');
  return { status: res.statusCode, headers, body };
}

/** A database blip after the commit: keep trying for about a minute (the in-flight window). */
export function recordLater(
  store: IdempotencyKeyStore,
  logger: Logger,
  entry: KeyAttempt,
  answer: StoredAnswer,
): void {
  let attempt = 0;
  const tryAgain = (): void => {
    const delay = RECORD_RETRY_MS[attempt];
    if (delay === undefined) {
      logger.error(
        { key: entry.key },
        'idempotency: the answer could not be recorded; a retry will be told it was lost',
      );
      return;
    }
    attempt += 1;
    setTimeout(() => {
      store.recordAnswer(entry, answer).catch(tryAgain);
    }, delay).unref();
  };
  tryAgain();
}
