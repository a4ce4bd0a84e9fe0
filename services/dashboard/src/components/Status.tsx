import type { ReactNode } from 'react';
import { ApiError } from '../api/http';
import { NotFound } from '../pages/NotFound';

/** A wait in words: seconds, minutes or hours. */
function waitOf(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}

/** A page (or its code, or the session) on its way. */
export function Loading() {
  return <p role="status">Loading…</p>;
}

/** What a query shows while it loads or when it failed: a 404 is the not-found page (another account's id included). */
export function QueryState({
  isPending,
  error,
  what,
  children,
}: {
  isPending: boolean;
  error: Error | null;
  what: string;
  children: () => ReactNode;
}) {
  if (isPending) return <p role="status">Loading {what}…</p>;
  if (error instanceof ApiError && error.status === 404) return <NotFound what={what} />;
  if (error instanceof ApiError && error.rateLimited)
    return (
      <p role="alert">
        Could not load the {what}: too many requests for now.
        {error.retryAfterSeconds === undefined
          ? ' Reload the page later.'
          : ` Reload the page in ${waitOf(error.retryAfterSeconds)}.`}
      </p>
    );
  if (error !== null)
    return (
      <p role="alert">
        Could not load the {what}: {error.message}
      </p>
    );
  return <>{children()}</>;
}
