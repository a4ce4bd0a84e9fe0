import { AppError } from '@svc/errors';
import { guardedFetch, httpUrlProblem } from '@svc/fetch-guard';
import { isNotAnImageError, picturePixels, type ImageFingerprint } from '@svc/image-fingerprint';
import type { FaceExamination } from '@svc/face-engine';
import type { EnrolledPicture, ImageSource, PictureAnalysis } from '../domain/ports';
import { fetchImageBytes, fingerprintImageBytes, invalidImageUrl } from './image-download';
import {
  type ImageFetcherOptions,
  DEFAULT_CHECK_MAX_PIXELS,
  MAX_FALLBACK_PIXELS,
  FALLBACKS_PER_PLATFORM,
  ENROLMENT,
  ENROLMENT_TIMEOUT_MS,
  type ImageFetcherStats,
  ONE_HOUR_MS,
} from './image-fetcher-options';
export {
  type ImageFetcherOptions,
  MAX_FALLBACK_PIXELS,
  FALLBACKS_PER_PLATFORM,
  type ImageFetcherStats,
} from './image-fetcher-options';

/**
 * Fingerprints of pictures by URL: fetched through the outbound-fetch guard (docs/spec/contracts.md §11),
 * fingerprinted with @svc/image-fingerprint, cached by URL for at most `ttlMs`. Concurrent
 * requests for one URL share one fetch; failures are not cached. Errors are AppErrors:
 * IMAGE_TOO_LARGE (over 10 MB, counted while streaming) or INVALID_IMAGE_URL with `details.reason`.
 */
export class ImageFetcher implements ImageSource {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly fetch: typeof guardedFetch;
  // Insertion order is age order: the first key is the oldest entry.
  private readonly cache = new Map<string, { fingerprint: ImageFingerprint; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<ImageFingerprint>>();
  // Per platform: fingerprints being taken on the event loop's side now (FALLBACKS_PER_PLATFORM).
  private readonly fallbacks = new Map<string, number>();
  private hits = 0;
  private misses = 0;

  constructor(private readonly options: ImageFetcherOptions) {
    this.ttlMs = options.ttlMs ?? ONE_HOUR_MS;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.fetch = options.fetch ?? guardedFetch;
  }

  /** The picture's fingerprint; AppError INVALID_IMAGE_URL or IMAGE_TOO_LARGE when it cannot be had. */
  async fingerprintOf(url: string): Promise<ImageFingerprint> {
    const problem = httpUrlProblem(url);
    if (problem !== null) {
      throw invalidImageUrl(`The image URL is not an absolute http(s) URL: ${problem}`, {
        reason: 'invalid_url',
      });
    }
    const key = new URL(url).href;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      if (this.options.clock.now().getTime() < cached.expiresAt) {
        this.hits += 1;
        return cached.fingerprint;
      }
      this.cache.delete(key);
    }
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      this.hits += 1;
      return pending;
    }
    this.misses += 1;
    const fetching = this.fetchAndFingerprint(key)
      .then((fingerprint) => {
        this.remember(key, fingerprint);
        return fingerprint;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  /**
   * A checked picture, fetched once: its fingerprint and the descriptors of its faces, examined
   * under the platform's share of the workers within `timeoutMs` (else `faces: null`, the band
   * `unavailable`). The descriptors are returned, never kept: only reference images are enrolled
   * (docs/spec/contracts.md §15). RATE_LIMITED when the platform already has its share of pictures.
   */
  async analyse(
    url: string,
    options: {
      platformId: string;
      timeoutMs: number;
      fetchTimeoutMs?: number;
      totalMs?: number;
      whenBusy?: 'refuse' | 'without_faces';
    },
  ): Promise<PictureAnalysis> {
    const key = this.checkedKey(url);
    const started = performance.now();
    const bytes = await this.fetchBytes(key, options.fetchTimeoutMs);
    // Weighed from its header before anything decodes it (docs/spec/contracts.md §17).
    const maxPixels = this.options.checkMaxPixels ?? DEFAULT_CHECK_MAX_PIXELS;
    const pixels = await picturePixels(bytes);
    if (pixels !== null && pixels > maxPixels) {
      throw invalidImageUrl(
        `The picture has ${Math.round(pixels / 1_000_000)} megapixels; a checked picture may have at most ` +
          `${Math.round(maxPixels / 1_000_000)} million`,
        { reason: 'too_many_pixels', pixels, maxPixels },
      );
    }
    // The faces get their own time, but never past the check's whole budget for its picture.
    const left = options.totalMs === undefined ? Infinity : options.totalMs - (performance.now() - started);
    const facesMs = Math.min(options.timeoutMs, left);
    // The worker takes the fingerprint beside the faces (its hashing is JavaScript: off the event
    // loop there); only when the faces are not examined in time is it taken here instead.
    let examined: Awaited<ReturnType<ImageFetcher['examine']>>;
    try {
      examined = await this.examine(bytes, options.platformId, facesMs);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'RATE_LIMITED' && options.whenBusy === 'without_faces')) {
        throw err;
      }
      examined = null;
    }
    const fingerprint =
      examined?.fingerprint ?? (await this.fallbackFingerprint(bytes, pixels, options.platformId));
    this.remember(key, fingerprint);
    return { fingerprint, faces: examined === null ? null : { descriptors: examined.descriptors } };
  }

  /**
   * The fingerprint of a picture the workers did not examine: taken here when there are no workers
   * or the picture is small; a larger one is refused (INVALID_IMAGE_URL reason
   * `examination_timeout`) rather than decoded beside every platform's checks.
   */
  private async fallbackFingerprint(
    bytes: Buffer,
    pixels: number | null,
    platformId: string,
  ): Promise<ImageFingerprint> {
    if (this.options.faces === undefined) return this.fingerprintBytes(bytes);
    const notNow = (message: string, details: Record<string, unknown>) =>
      invalidImageUrl(
        `${message} could not be examined within the check's time: this platform's pictures are ` +
          `waiting their turn. Retry shortly.`,
        { reason: 'examination_timeout', ...details },
      );
    const running = this.fallbacks.get(platformId) ?? 0;
    if (running >= FALLBACKS_PER_PLATFORM) throw notNow('The picture', {});
    this.fallbacks.set(platformId, running + 1);
    try {
      if (pixels !== null && pixels > MAX_FALLBACK_PIXELS) {
        throw notNow(`The picture (${Math.round(pixels / 1_000_000)} megapixels)`, {
          pixels,
          maxPixels: MAX_FALLBACK_PIXELS,
        });
      }
      return await this.fingerprintBytes(bytes);
    } finally {
      const left = (this.fallbacks.get(platformId) ?? 1) - 1;
      if (left === 0) this.fallbacks.delete(platformId);
      else this.fallbacks.set(platformId, left);
    }
  }

  /**
   * A reference image for enrolment: its fingerprint and every face found (no cache: the job
   * fetches each picture once, and a failure is retried by the job's own schedule).
   */
  async enrol(url: string): Promise<EnrolledPicture> {
    const bytes = await this.fetchBytes(this.checkedKey(url));
    const faces = this.options.faces;
    if (faces === undefined) return { fingerprint: await this.fingerprintBytes(bytes), faces: null };
    let examination: FaceExamination;
    try {
      examination = await faces.budget.run(ENROLMENT, () =>
        // A reference picture may show its face small: enrolment takes the second, finer look.
        // The worker takes the fingerprint too, off the event loop that answers checks.
        faces.examiner.examine(bytes, {
          timeoutMs: ENROLMENT_TIMEOUT_MS,
          smallFaces: true,
          fingerprint: true,
        }),
      );
    } catch (err) {
      // Not a picture: refused as the fingerprint refuses it (INVALID_IMAGE_URL).
      if (isNotAnImageError(err)) await this.fingerprintBytes(bytes);
      // The job tries the picture again later (its retry schedule), as for a fetch that failed.
      throw new AppError('SERVICE_UNAVAILABLE', 'The faces of the picture could not be examined', {
        details: { reason: 'face_examination' },
        cause: err,
      });
    }
    return {
      fingerprint: examination.fingerprint ?? (await this.fingerprintBytes(bytes)),
      faces: examination.faces.map((face) => ({
        descriptor: face.descriptor,
        score: face.score,
        width: face.box.width,
      })),
    };
  }

  private async examine(
    bytes: Buffer,
    platformId: string,
    timeoutMs: number,
  ): Promise<{ descriptors: Float32Array[]; fingerprint: ImageFingerprint | undefined } | null> {
    const faces = this.options.faces;
    if (faces === undefined) return null;
    if (timeoutMs < 1) return null;
    // The deadline takes a picture still waiting out of the platform's queue; one already being
    // examined runs to its end in its worker (ending a worker costs a second of model loading)
    // and the answer goes on without its faces.
    const deadline = AbortSignal.timeout(Math.ceil(timeoutMs));
    const examination = faces.budget.run(
      platformId,
      () => faces.examiner.examine(bytes, { fingerprint: true }),
      deadline,
    );
    const late = new Promise<null>((resolve) =>
      deadline.addEventListener('abort', () => resolve(null), { once: true }),
    );
    try {
      const examined = await Promise.race([examination, late]);
      return examined === null
        ? null
        : { descriptors: examined.faces.map((face) => face.descriptor), fingerprint: examined.fingerprint };
    } catch (err) {
      // The platform's share is taken: its own check is refused (429), nobody else's.
      if (err instanceof AppError && err.code === 'RATE_LIMITED') throw err;
      // The picture's faces could not be read: names and fingerprints decide.
      return null;
    } finally {
      // A late examination's outcome is nobody's: keep its rejection from going unhandled.
      examination.catch(() => undefined);
    }
  }

  private checkedKey(url: string): string {
    const problem = httpUrlProblem(url);
    if (problem !== null) {
      throw invalidImageUrl(`The image URL is not an absolute http(s) URL: ${problem}`, {
        reason: 'invalid_url',
      });
    }
    return new URL(url).href;
  }

  /** Cache counters, for metrics. */
  stats(): ImageFetcherStats {
    return { hits: this.hits, misses: this.misses, size: this.cache.size };
  }

  private remember(key: string, fingerprint: ImageFingerprint): void {
    this.cache.delete(key);
    this.cache.set(key, { fingerprint, expiresAt: this.options.clock.now().getTime() + this.ttlMs });
    while (this.cache.size > this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (oldest.done === true) break;
      this.cache.delete(oldest.value);
    }
  }

  private async fetchAndFingerprint(url: string): Promise<ImageFingerprint> {
    return this.fingerprintBytes(await this.fetchBytes(url));
  }

  private fetchBytes(url: string, timeoutMs?: number): Promise<Buffer> {
    return fetchImageBytes({ fetch: this.fetch, options: this.options }, url, timeoutMs);
  }

  private fingerprintBytes(bytes: Buffer): Promise<ImageFingerprint> {
    return fingerprintImageBytes(bytes);
  }
}
