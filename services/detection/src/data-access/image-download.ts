import { AppError } from '@svc/errors';
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  isFetchGuardError,
  type FetchGuardReason,
  type GuardedResponse,
  type guardedFetch,
} from '@svc/fetch-guard';
import { fingerprintImage, isNotAnImageError, type ImageFingerprint } from '@svc/image-fingerprint';
import type { ImageFetcherOptions } from './image-fetcher-options';

// A picture's bytes through the outbound-fetch guard, and its fingerprint, each refusal turned
// into the AppError the interface names (INVALID_IMAGE_URL with a reason, or IMAGE_TOO_LARGE).

// What each refusal of the fetch guard tells the caller. The guard's own message is not passed on:
// for an unreachable host it carries connection details (an oracle for probing networks).
const GUARD_MESSAGES: Record<Exclude<FetchGuardReason, 'too_large'>, string> = {
  invalid_url: 'The image URL is not a valid absolute URL',
  scheme: 'The image URL must use http or https',
  private_address: 'The image URL leads to a private, loopback, link-local or metadata address',
  timeout: `The image was not received within ${DEFAULT_TIMEOUT_MS / 1000} s`,
  unreachable: 'The image URL could not be reached',
  too_many_redirects: `The image URL redirects more than ${DEFAULT_MAX_REDIRECTS} times`,
};

export function invalidImageUrl(
  message: string,
  details: Record<string, unknown>,
  cause?: unknown,
): AppError {
  return new AppError('INVALID_IMAGE_URL', message, { details, cause });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** What a download needs of the fetcher: the fetch to use and the guard's options. */
export interface ImageDownload {
  fetch: typeof guardedFetch;
  options: Pick<ImageFetcherOptions, 'allowPrivateFetch' | 'addressPolicy'>;
}

async function download(
  { fetch, options }: ImageDownload,
  url: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<GuardedResponse> {
  try {
    return await fetch(url, {
      allowPrivate: options.allowPrivateFetch,
      timeoutMs,
      maxBytes: DEFAULT_MAX_BYTES,
      maxRedirects: DEFAULT_MAX_REDIRECTS,
      headers: { accept: 'image/*' },
      ...(options.addressPolicy ? { addressPolicy: options.addressPolicy } : {}),
    });
  } catch (err) {
    if (!isFetchGuardError(err)) throw err;
    if (err.reason === 'too_large') {
      throw new AppError(
        'IMAGE_TOO_LARGE',
        `The image is larger than ${DEFAULT_MAX_BYTES / 1024 / 1024} MB`,
        {
          details: { reason: 'too_large', maxBytes: DEFAULT_MAX_BYTES },
          cause: err,
        },
      );
    }
    const message =
      err.reason === 'timeout' && timeoutMs !== DEFAULT_TIMEOUT_MS
        ? `The image was not received within ${timeoutMs / 1000} s (the check's time for its picture)`
        : GUARD_MESSAGES[err.reason];
    throw invalidImageUrl(message, { reason: err.reason }, err);
  }
}

/** The picture's bytes: a 2xx answer with an image type (INVALID_IMAGE_URL otherwise). */
export async function fetchImageBytes(via: ImageDownload, url: string, timeoutMs?: number): Promise<Buffer> {
  const response = await download(via, url, timeoutMs);
  if (response.status < 200 || response.status > 299) {
    throw invalidImageUrl(`The image URL answered HTTP ${response.status}`, {
      reason: 'http_status',
      status: response.status,
    });
  }
  const contentType = headerValue(response.headers['content-type']);
  if (contentType !== undefined && !/^\s*image\//i.test(contentType)) {
    throw invalidImageUrl(`The image URL did not answer with an image (content type ${contentType})`, {
      reason: 'not_an_image',
      contentType,
    });
  }
  return response.body;
}

/** The fingerprint of a picture's bytes (INVALID_IMAGE_URL when they are not a readable picture). */
export async function fingerprintImageBytes(bytes: Buffer): Promise<ImageFingerprint> {
  try {
    return await fingerprintImage(bytes);
  } catch (err) {
    if (!isNotAnImageError(err)) throw err;
    throw invalidImageUrl(
      `The image URL did not answer with a picture that can be read: ${err.message}`,
      {
        reason: err.reason === 'too_many_pixels' ? 'too_many_pixels' : 'not_an_image',
      },
      err,
    );
  }
}
