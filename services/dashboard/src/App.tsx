import { Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { useSession } from './api/session';
import { Layout } from './components/Layout';
import { PageSuspense } from './components/PageSuspense';
import { RequireSession } from './components/RequireSession';
import { NotFound } from './pages/NotFound';
import {
  AcceptInvitation,
  AccountSecurity,
  AppealsToReview,
  BoxDetail,
  Boxes,
  ClaimDetail,
  Claims,
  ClaimsToReview,
  Earnings,
  ForgotPassword,
  Keys,
  LicenseDetail,
  Licenses,
  Members,
  NewClaim,
  Obligations,
  OperatorHome,
  OperatorSignIn,
  Overview,
  preloadWhenIdle,
  ResetPassword,
  SignIn,
  SignUp,
  Tenants,
  Usage,
  VerifyEmail,
  Violations,
  RequestLogs,
  WebhookEvents,
  Billing,
  ViolationDetail,
  WebhookDetail,
  Webhooks,
} from './pages';
import { Loading } from './components/Status';

/** Signed-out pages: a signed-in visitor goes to the overview. */
function SignedOut({ children }: { children: React.ReactNode }) {
  const { data: session, isPending } = useSession();
  if (isPending) return <Loading />;
  if (session !== null && session !== undefined) return <Navigate to="/" replace />;
  return <PageSuspense>{children}</PageSuspense>;
}

export function App() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
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
        <Route
          element={
            <RequireSession>
              <Layout preloadWhenIdle={preloadWhenIdle} />
            </RequireSession>
          }
        >
          <Route index element={<Overview />} />
          <Route
            path="operations"
            element={
              <RequireSession roles={['operator']}>
                <OperatorHome />
              </RequireSession>
            }
          />
          <Route
            path="review/claims"
            element={
              <RequireSession roles={['operator']}>
                <ClaimsToReview />
              </RequireSession>
            }
          />
          <Route
            path="review/appeals"
            element={
              <RequireSession roles={['operator']}>
                <AppealsToReview />
              </RequireSession>
            }
          />
          <Route
            path="tenants"
            element={
              <RequireSession roles={['operator']}>
                <Tenants />
              </RequireSession>
            }
          />
          <Route
            path="usage"
            element={
              <RequireSession roles={['platform']}>
                <Usage />
              </RequireSession>
            }
          />
          <Route
            path="licenses"
            element={
              <RequireSession roles={['platform']}>
                <Licenses />
              </RequireSession>
            }
          />
          <Route
            path="licenses/:id"
            element={
              <RequireSession roles={['platform']}>
                <LicenseDetail />
              </RequireSession>
            }
          />
          <Route
            path="violations"
            element={
              <RequireSession roles={['platform']}>
                <Violations />
              </RequireSession>
            }
          />
          <Route
            path="violations/:id"
            element={
              <RequireSession roles={['platform']}>
                <ViolationDetail />
              </RequireSession>
            }
          />
          <Route
            path="billing"
            element={
              <RequireSession roles={['platform']}>
                <Billing />
              </RequireSession>
            }
          />
          <Route
            path="obligations"
            element={
              <RequireSession roles={['platform']}>
                <Obligations />
              </RequireSession>
            }
          />
          <Route
            path="keys"
            element={
              <RequireSession roles={['platform']}>
                <Keys />
              </RequireSession>
            }
          />
          <Route
            path="logs"
            element={
              <RequireSession roles={['platform']}>
                <RequestLogs />
              </RequireSession>
            }
          />
          <Route
            path="webhooks"
            element={
              <RequireSession roles={['platform', 'creator']}>
                <Webhooks />
              </RequireSession>
            }
          />
          <Route
            path="webhooks/events"
            element={
              <RequireSession roles={['platform']}>
                <WebhookEvents />
              </RequireSession>
            }
          />
          <Route
            path="webhooks/:id"
            element={
              <RequireSession roles={['platform', 'creator']}>
                <WebhookDetail />
              </RequireSession>
            }
          />
          <Route
            path="claims"
            element={
              <RequireSession roles={['creator', 'platform']}>
                <Claims />
              </RequireSession>
            }
          />
          <Route
            path="claims/new"
            element={
              <RequireSession roles={['creator', 'platform']}>
                <NewClaim />
              </RequireSession>
            }
          />
          <Route
            path="claims/:id"
            element={
              <RequireSession roles={['creator', 'platform']}>
                <ClaimDetail />
              </RequireSession>
            }
          />
          <Route
            path="boxes"
            element={
              <RequireSession roles={['creator', 'platform']}>
                <Boxes />
              </RequireSession>
            }
          />
          <Route
            path="earnings"
            element={
              <RequireSession roles={['creator', 'platform']}>
                <Earnings />
              </RequireSession>
            }
          />
          <Route
            path="boxes/:id"
            element={
              <RequireSession roles={['creator', 'platform']}>
                <BoxDetail />
              </RequireSession>
            }
          />
          <Route
            path="members"
            element={
              <RequireSession roles={['platform', 'creator']}>
                <Members />
              </RequireSession>
            }
          />
          <Route path="account" element={<AccountSecurity />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
