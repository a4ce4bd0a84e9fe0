import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Clock } from '@svc/clock';
import { AppError } from '@svc/errors';
import { randomBase62 } from '@svc/ids';
import type { Logger } from '@svc/logger';
import { runWithTransactionHook, type Database } from '@svc/storage';
import { IdempotencyKeyStore, type KeyAttempt, type StoredAnswer } from './idempotency.store';
import { authOf } from './request-context.middleware';

/** Answers are replayed for 24 hours (docs/spec/contracts.md §7). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A key that committed without an answer is taken to be still running for this long (longer than
 * any route's budget plus the retries of recording the answer); after it, the answer is lost.
 */
export const IDEMPOTENCY_IN_FLIGHT_MS = 60_000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
// Headers of an answer worth replaying; the request id is the retry's own.
const KEPT_HEADERS = ['content-type', 'location'];
const RECORD_RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 16000, 16000];
const PURGE_EVERY_MS = 60 * 60 * 1000;

/** What makes two requests "the same" for an Idempotency-Key: method, path, query and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(method)
    .update('\n')
    .update(url)
    .update('\n')
    .update(body === undefined ? '' : JSON.stringify(body))
    .digest('hex');
}

/** Whether an answer is kept for replays: never a 5xx (nothing may be known to have run) nor a 429. */
export function isReplayable(status: number): boolean {
  return status < 500 && status !== 429;
}

export interface IdempotencyOptions {
  db: Database;
  logger: Logger;
  /** Real time: when keys were first used and when they expire. */
  clock: Clock;
}

/**
 * Makes every write of the service idempotent per platform and Idempotency-Key, without code in
 * the routes: the key row is enlisted in every transaction the request opens on `db`, so it commits
 * with the effect; the answer is recorded before it is sent and replayed to a retry with
 * `Idempotent-Replayed: true`. A request that committed nothing records nothing and may run again.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const store = new IdempotencyKeyStore(options.db);
  const { clock, logger } = options;
  let lastPurge = 0;

  const purgeNowAndThen = (now: Date): void => {
    if (now.getTime() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = now.getTime();
    store
      .purge(new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
      .catch((err: unknown) => logger.warn({ err }, 'idempotency: purge of expired keys failed'));
  };

  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.header('idempotency-key');
    if (key === undefined || !WRITE_METHODS.has(req.method)) {
      next();
      return;
    }
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
        details: { fields: [{ field: 'Idempotency-Key', message: 'invalid' }] },
      });
    }
    const { platformId } = authOf(req);
    const fingerprint = requestFingerprint(req.method, req.originalUrl, req.body);
    const now = clock.now();

    const found = await store.find(platformId, key);
    if (found !== null) {
      const age = now.getTime() - found.createdAt.getTime();
      if (age >= IDEMPOTENCY_TTL_MS) {
        await store.forget(platformId, key, found.attempt);
      } else if (found.fingerprint !== fingerprint) {
        throw conflict('different_request');
      } else if (found.answer !== null) {
        replay(res, found.answer);
        return;
      } else {
        throw conflict(age < IDEMPOTENCY_IN_FLIGHT_MS ? 'in_progress' : 'answer_lost');
      }
    }

    const entry: KeyAttempt = { platformId, key, fingerprint, attempt: randomBase62(20), createdAt: now };
    let active = true;
    const hook = {
      db: options.db,
      isActive: () => active,
      enlist: async (tx: Parameters<IdempotencyKeyStore['enlist']>[0]) => {
        if (!(await store.enlist(tx, entry))) throw conflict('in_progress');
      },
    };

    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    (res as { end: unknown }).end = (...args: unknown[]): Response => {
      active = false;
      if (!isReplayable(res.statusCode)) return end(...args);
      const answer = answerOf(res, args[0]);
      // The answer is kept before it leaves: a client that receives it can always have it again.
      store
        .recordAnswer(entry, answer)
        .then(() => end(...args))
        .catch((err: unknown) => {
          logger.warn({ err, key }, 'idempotency: could not record the answer; retrying in the background');
          end(...args);
          recordLater(store, logger, entry, answer);
        });
      purgeNowAndThen(now);
      return res;
    };

    runWithTransactionHook(hook, next);
  };
}

function conflict(reason: 'different_request' | 'in_progress' | 'answer_lost'): AppError {
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

function replay(res: Response, answer: StoredAnswer): void {
  res.status(answer.status).set(answer.headers).set(IDEMPOTENT_REPLAYED_HEADER, 'true');
  res.end(answer.body);
}

function answerOf(res: Response, chunk: unknown): StoredAnswer {
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
function recordLater(
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
