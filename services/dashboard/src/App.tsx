import { Navigate, Route, Routes } from 'react-router';
import { useSession } from './api/session';
import { Layout } from './components/Layout';
import { RequireSession } from './components/RequireSession';
import { AccountSecurity } from './pages/account/AccountSecurity';
import { NotFound } from './pages/NotFound';
import { BoxDetail } from './pages/creator/BoxDetail';
import { Boxes } from './pages/creator/Boxes';
import { ClaimDetail } from './pages/creator/ClaimDetail';
import { Claims } from './pages/creator/Claims';
import { Earnings } from './pages/creator/Earnings';
import { NewClaim } from './pages/creator/NewClaim';
import { AppealsToReview } from './pages/operator/AppealsToReview';
import { ClaimsToReview } from './pages/operator/ClaimsToReview';
import { OperatorHome } from './pages/operator/OperatorHome';
import { Tenants } from './pages/operator/Tenants';
import { Keys } from './pages/platform/Keys';
import { LicenseDetail, Licenses } from './pages/platform/Licenses';
import { Obligations } from './pages/platform/Obligations';
import { Usage } from './pages/platform/Usage';
import { Violations } from './pages/platform/Violations';
import { WebhookDetail } from './pages/platform/WebhookDetail';
import { Webhooks } from './pages/platform/Webhooks';
import { Overview } from './pages/Overview';
import { OperatorSignIn, SignIn } from './pages/SignIn';
import { SignUp } from './pages/SignUp';
import { ForgotPassword } from './pages/account-mail/ForgotPassword';
import { ResetPassword } from './pages/account-mail/ResetPassword';
import { VerifyEmail } from './pages/account-mail/VerifyEmail';

/** Signed-out pages: a signed-in visitor goes to the overview. */
function SignedOut({ children }: { children: React.ReactNode }) {
  const { data: session, isPending } = useSession();
  if (isPending) return <p role="status">Loading…</p>;
  if (session !== null && session !== undefined) return <Navigate to="/" replace />;
  return <>{children}</>;
}

export function App() {
  return (
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
      <Route path="/verify-email" element={<VerifyEmail />} />
      <Route path="/reset-password" element={<ResetPassword />} />
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
            <Layout />
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
          path="webhooks"
          element={
            <RequireSession roles={['platform', 'creator']}>
              <Webhooks />
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
        <Route path="account" element={<AccountSecurity />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
