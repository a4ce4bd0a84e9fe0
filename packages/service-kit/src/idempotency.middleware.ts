import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Registry } from 'prom-client';
import type { Clock } from '@svc/clock';
import { AppError } from '@svc/errors';
import { randomBase62 } from '@svc/ids';
import type { Logger } from '@svc/logger';
import { runWithTransactionHook, type Database, type HeldCommit, type TransactionHook } from '@svc/storage';
import { IdempotencyKeyStore, type KeyAttempt } from './idempotency.store';
import {
  answerOf,
  answerUncommitted,
  conflict,
  provisionalOf,
  recordLater,
  replay,
} from './idempotency-answers';
import { counterOn } from './metric-registration';

import { authOf } from './request-context.middleware';

export { IDEMPOTENT_REPLAYED_HEADER, provisionalAnswer } from './idempotency-answers';

/** Answers are replayed for 24 hours (docs/spec/contracts.md §7). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A key that committed without an answer is taken to be still running for this long (longer than
 * any route's budget plus the retries of recording the answer); after it, the answer is lost.
 */
export const IDEMPOTENCY_IN_FLIGHT_MS = 60_000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
// Headers of an answer worth replaying; the request id is the retry's own.
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
  /** Counts where answers were kept (`idempotency_answers_kept_total`), by route. */
  metrics?: { registry: Registry; routeOf(req: Request): string };
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
  const kept =
    options.metrics === undefined
      ? undefined
      : counterOn(options.metrics.registry, {
          name: 'idempotency_answers_kept_total',
          help:
            'Answers kept for an Idempotency-Key: with_write in the transaction of the write (no crash can ' +
            'part them), after_write when the route went on after its transaction (a crash between them loses the answer)',
          labelNames: ['route', 'kept'],
        });
  const count = (req: Request, where: 'with_write' | 'after_write'): void => {
    if (kept !== undefined && options.metrics !== undefined)
      kept.inc({ route: options.metrics.routeOf(req), kept: where });
  };
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
    // Whether the key committed with some write of this request before its answer existed (the
    // answer is then recorded on its own), and whether the database could hold transactions at all.
    let enlisted = false;
    let heldAny = false;
    let keyCommitted = false;
    // The request's last transaction, its work done, waiting to commit with the answer (ADR 0011).
    let held: HeldCommit | undefined;
    // A held transaction's commit under way: what comes next in the request waits for it.
    let committing: Promise<void> | undefined;
    // Set when a held transaction failed to commit: whatever the route answers, its write is gone.
    let lostCommit: unknown;
    const commitHeld = (): Promise<void> | undefined => {
      const holding = held;
      if (holding === undefined) return committing;
      held = undefined;
      // The answer the route gave for the case where it goes no further commits with the write.
      const provisional = provisionalOf(res);
      const commit: Promise<void> = holding
        .commit(
          provisional === undefined
            ? undefined
            : async (tx) => {
                await store.recordAnswerIn(tx, entry, provisional);
              },
        )
        .then(() => {
          keyCommitted = true;
        })
        .catch((err: unknown) => {
          lostCommit = err;
          throw err;
        })
        .finally(() => {
          if (committing === commit) committing = undefined;
        });
      committing = commit;
      return commit;
    };
    const hook: TransactionHook = {
      db: options.db,
      isActive: () => active,
      enlist: async (tx) => {
        if (!(await store.enlist(tx, entry))) throw conflict('in_progress');
        enlisted = true;
      },
      hold: (transaction) => {
        held = transaction;
        heldAny = true;
        // The route answers within this turn of the event loop, or the transaction commits
        // without its answer, as it would have, rather than keep its locks while the route waits.
        setImmediate(() => {
          if (held !== transaction) return;
          commitHeld()?.catch((err: unknown) =>
            logger.warn({ err, key }, 'idempotency: the request’s write could not commit'),
          );
        });
        return true;
      },
      settle: () => commitHeld(),
    };

    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    (res as { end: unknown }).end = (...args: unknown[]): Response => {
      active = false;
      const replayable = isReplayable(res.statusCode);
      const answer = replayable ? answerOf(res, args[0]) : undefined;
      const holding = held;
      held = undefined;
      if (holding !== undefined) {
        // The answer commits with the write: a retry after any crash gets it, or runs anew.
        holding
          .commit(
            answer === undefined
              ? undefined
              : async (tx) => {
                  await store.recordAnswerIn(tx, entry, answer);
                },
          )
          .then(
            () => {
              if (answer !== undefined) count(req, 'with_write');
              end(...args);
            },
            (err: unknown) => {
              logger.warn({ err, key }, 'idempotency: the request’s write could not commit');
              if (replayable) answerUncommitted(res, end);
              else end(...args);
            },
          );
      } else {
        // Whatever committed apart from the answer has finished committing (or failed) first.
        const before = committing?.catch(() => undefined) ?? Promise.resolve();
        void before.then(() => {
          if (lostCommit !== undefined && replayable) {
            answerUncommitted(res, end);
          } else if (answer !== undefined && (keyCommitted || (enlisted && !heldAny))) {
            // The write committed before the answer existed (the route went on after its
            // transaction): the answer is kept before it leaves, so a client that receives it can
            // always have it again.
            count(req, 'after_write');
            store
              .recordAnswer(entry, answer)
              .then(() => end(...args))
              .catch((err: unknown) => {
                logger.warn(
                  { err, key },
                  'idempotency: could not record the answer; retrying in the background',
                );
                end(...args);
                recordLater(store, logger, entry, answer);
              });
          } else {
            end(...args);
          }
        });
      }
      purgeNowAndThen(now);
      return res;
    };

    runWithTransactionHook(hook, next);
  };
}
