import { Navigate, Route } from 'react-router';
import { useSession } from './api/session';
import { PageSuspense } from './components/PageSuspense';
import { Loading } from './components/Status';
import {
  AcceptInvitation,
  ForgotPassword,
  OperatorSignIn,
  ResetPassword,
  SignIn,
  SignUp,
  VerifyEmail,
} from './pages';

// The pages of a visitor who is not signed in (sign-in, sign-up, invitations, password reset).

/** Signed-out pages: a signed-in visitor goes to the overview. */
function SignedOut({ children }: { children: React.ReactNode }) {
  const { data: session, isPending } = useSession();
  if (isPending) return <Loading />;
  if (session !== null && session !== undefined) return <Navigate to="/" replace />;
  return <PageSuspense>{children}</PageSuspense>;
}

/** The signed-out routes, as children of the app's `<Routes>`. */
export function signedOutRoutes() {
  return (
    <>
      <Route
        path="/sign-in"
        element={
          <SignedOut>
            <SignIn />
          </SignedOut>
        }
      />
      <Route
        path="/sign-up"
        element={
          <SignedOut>
            <SignUp />
          </SignedOut>
        }
      />
      {/* The landing pages of mailed links (#30): the verification link signs in, so it is not "signed out" only. */}
      <Route
        path="/verify-email"
        element={
          <PageSuspense>
            <VerifyEmail />
          </PageSuspense>
        }
      />
      {/* An invitation's link (#32) signs the new member in, as the verification link does. */}
      <Route
        path="/accept-invitation"
        element={
          <PageSuspense>
            <AcceptInvitation />
          </PageSuspense>
        }
      />
      <Route
        path="/reset-password"
        element={
          <PageSuspense>
            <ResetPassword />
          </PageSuspense>
        }
      />
      <Route
        path="/forgot-password"
        element={
          <SignedOut>
            <ForgotPassword />
          </SignedOut>
        }
      />
      <Route
        path="/operator-sign-in"
        element={
          <SignedOut>
            <OperatorSignIn />
          </SignedOut>
        }
      />
    </>
  );
}
