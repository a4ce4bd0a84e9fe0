/** Why some bytes were refused as a picture. */
export type NotAnImageReason = 'unsupported_format' | 'corrupt' | 'too_many_pixels';

/** Thrown by `fingerprintImage` when the bytes are not a raster picture it may decode. */
export class NotAnImageError extends Error {
  constructor(
    readonly reason: NotAnImageReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NotAnImageError';
  }
}

/** True for a NotAnImageError, including one thrown by another copy of this package. */
export function isNotAnImageError(err: unknown): err is NotAnImageError {
  return err instanceof NotAnImageError || (err instanceof Error && err.name === 'NotAnImageError');
}
