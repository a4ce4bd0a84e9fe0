import { Suspense, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { Loading } from './Status';

/**
 * Where a page's code loads. A new boundary for each path: React Router navigates in a transition,
 * and a boundary already on screen would keep the last page there, clickable and typed into, until
 * the next page's chunk arrived (a browser test filled the sign-in page's e-mail field while
 * 'Forgot your password?' loaded, and read the claims table for the boxes'). A new boundary shows
 * "Loading…" at once instead.
 */
export function PageSuspense({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return (
    <Suspense key={pathname} fallback={<Loading />}>
      {children}
    </Suspense>
  );
}
