/** Why a guarded fetch was refused or failed. */
export type FetchGuardReason =
  | 'invalid_url'
  | 'scheme'
  | 'private_address'
  | 'too_large'
  | 'timeout'
  | 'unreachable'
  | 'too_many_redirects';

/** Thrown by `guardedFetch` and `checkUrl`; `reason` says which rule refused the fetch. */
export class FetchGuardError extends Error {
  constructor(
    readonly reason: FetchGuardReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchGuardError';
  }
}

/** True for a FetchGuardError, including one thrown by another copy of this package. */
export function isFetchGuardError(err: unknown): err is FetchGuardError {
  return err instanceof FetchGuardError || (err instanceof Error && err.name === 'FetchGuardError');
}
