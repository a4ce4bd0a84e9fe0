import type { Clock } from '@svc/clock';
import { guardedFetch } from '@svc/fetch-guard';
import type { FaceExaminer } from '@svc/face-engine';
import type { PictureBudget } from '../domain/face-matching/picture-budget';

// What an image fetcher is built with, its limits, and the counters it reports.

export interface ImageFetcherOptions {
  /** SVC_ALLOW_PRIVATE_FETCH: development and tests only. */
  allowPrivateFetch: boolean;
  clock: Clock;
  /** How long a fingerprint is served from the cache. Default one hour. */
  ttlMs?: number;
  /** Cached URLs at most; the oldest goes first. Default 10,000. */
  maxEntries?: number;
  /** The outbound fetch (tests pass a fake). Default `guardedFetch`. */
  fetch?: typeof guardedFetch;
  /** Test seam passed to the fetch guard: why an address is refused (null: allowed). */
  addressPolicy?: (address: string) => string | null;
  /** Examines the faces of pictures (worker threads); without one, faces are `unavailable`. */
  faces?: { examiner: FaceExaminer; budget: PictureBudget } | undefined;
  /** The most pixels of a checked picture (`analyse`); default 24 million. */
  checkMaxPixels?: number;
}

export const DEFAULT_CHECK_MAX_PIXELS = 24_000_000;

/**
 * The largest picture whose fingerprint is taken on the event loop's side (sharp's threads and the
 * hashing on the event loop) when its examination in the workers did not happen: a 12-megapixel
 * photograph costs tens of milliseconds there, a 100-megapixel one a second of both cores. Larger
 * ones are only ever decoded in the workers, under the platform's share (docs/spec/contracts.md §17),
 * so one platform's huge pictures cannot slow everyone's checks.
 */
export const MAX_FALLBACK_PIXELS = 16_000_000;
/**
 * One platform's fingerprints taken on the event loop's side at once (their hashing runs on the
 * event loop every check shares): a batch of a hundred pictures its workers' share did not reach
 * takes a few at a time, the others are answered unchecked, instead of a second of hashing.
 */
export const FALLBACKS_PER_PLATFORM = 2;

/** The budget's key for the reference-image job: enrolment takes its turn beside the platforms. */
export const ENROLMENT = '(enrolment)';
/** How long enrolment waits for one picture's faces. */
export const ENROLMENT_TIMEOUT_MS = 30_000;

export interface ImageFetcherStats {
  /** Answers without a fetch of their own: from the cache, or joining a fetch under way. */
  hits: number;
  /** Fetches started. */
  misses: number;
  /** URLs cached now (expired ones included until they are next asked for or evicted). */
  size: number;
}

export const ONE_HOUR_MS = 3_600_000;
