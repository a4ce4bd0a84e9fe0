import type { ReactNode } from 'react';
import { ApiError } from '../api/http';
import { NotFound } from '../pages/NotFound';

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
  if (error !== null)
    return (
      <p role="alert">
        Could not load the {what}: {error.message}
      </p>
    );
  return <>{children()}</>;
}
