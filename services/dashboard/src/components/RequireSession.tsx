import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession, type Role } from '../api/session';
import { NotFound } from '../pages/NotFound';
import { Loading } from './Status';

/** Pages behind sign-in: a signed-out visitor goes to the sign-in page; a page of another role is not found. */
export function RequireSession({ roles, children }: { roles?: Role[]; children: ReactNode }) {
  const { data: session, isPending, error } = useSession();
  const location = useLocation();
  if (isPending) return <Loading />;
  if (error !== null) return <p role="alert">The dashboard cannot reach the API: {error.message}</p>;
  if (session === null) {
    return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  }
  if (roles !== undefined && !roles.includes(session.account.role)) return <NotFound />;
  return <>{children}</>;
}
