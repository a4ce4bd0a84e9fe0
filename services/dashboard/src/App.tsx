import { lazy, Suspense } from 'react';
import { matchPath, Navigate, Route, Routes } from 'react-router';
import { useSession } from './api/session';
import { Layout } from './components/Layout';
import { RequireSession } from './components/RequireSession';
import { NotFound } from './pages/NotFound';

// Each page is its own chunk, loaded when first opened (issue #32: the first load carried every
// page and the charts library); the frame, the session and the not-found page come at once.
const load = {
  AccountSecurity: () => import('./pages/account/AccountSecurity'),
  BoxDetail: () => import('./pages/creator/BoxDetail'),
  Boxes: () => import('./pages/creator/Boxes'),
  ClaimDetail: () => import('./pages/creator/ClaimDetail'),
  Claims: () => import('./pages/creator/Claims'),
  Earnings: () => import('./pages/creator/Earnings'),
  NewClaim: () => import('./pages/creator/NewClaim'),
  AppealsToReview: () => import('./pages/operator/AppealsToReview'),
  ClaimsToReview: () => import('./pages/operator/ClaimsToReview'),
  OperatorHome: () => import('./pages/operator/OperatorHome'),
  Tenants: () => import('./pages/operator/Tenants'),
  Keys: () => import('./pages/platform/Keys'),
  Licenses: () => import('./pages/platform/Licenses'),
  Obligations: () => import('./pages/platform/Obligations'),
  Usage: () => import('./pages/platform/Usage'),
  Violations: () => import('./pages/platform/Violations'),
  WebhookDetail: () => import('./pages/platform/WebhookDetail'),
  Webhooks: () => import('./pages/platform/Webhooks'),
  Overview: () => import('./pages/Overview'),
  SignIn: () => import('./pages/SignIn'),
  SignUp: () => import('./pages/SignUp'),
  ForgotPassword: () => import('./pages/account-mail/ForgotPassword'),
  ResetPassword: () => import('./pages/account-mail/ResetPassword'),
  VerifyEmail: () => import('./pages/account-mail/VerifyEmail'),
};

const AccountSecurity = lazy(() => load.AccountSecurity().then((m) => ({ default: m.AccountSecurity })));
const BoxDetail = lazy(() => load.BoxDetail().then((m) => ({ default: m.BoxDetail })));
const Boxes = lazy(() => load.Boxes().then((m) => ({ default: m.Boxes })));
const ClaimDetail = lazy(() => load.ClaimDetail().then((m) => ({ default: m.ClaimDetail })));
const Claims = lazy(() => load.Claims().then((m) => ({ default: m.Claims })));
const Earnings = lazy(() => load.Earnings().then((m) => ({ default: m.Earnings })));
const NewClaim = lazy(() => load.NewClaim().then((m) => ({ default: m.NewClaim })));
const AppealsToReview = lazy(() => load.AppealsToReview().then((m) => ({ default: m.AppealsToReview })));
const ClaimsToReview = lazy(() => load.ClaimsToReview().then((m) => ({ default: m.ClaimsToReview })));
const OperatorHome = lazy(() => load.OperatorHome().then((m) => ({ default: m.OperatorHome })));
const Tenants = lazy(() => load.Tenants().then((m) => ({ default: m.Tenants })));
const Keys = lazy(() => load.Keys().then((m) => ({ default: m.Keys })));
const LicenseDetail = lazy(() => load.Licenses().then((m) => ({ default: m.LicenseDetail })));
const Licenses = lazy(() => load.Licenses().then((m) => ({ default: m.Licenses })));
const Obligations = lazy(() => load.Obligations().then((m) => ({ default: m.Obligations })));
const Usage = lazy(() => load.Usage().then((m) => ({ default: m.Usage })));
const Violations = lazy(() => load.Violations().then((m) => ({ default: m.Violations })));
const WebhookDetail = lazy(() => load.WebhookDetail().then((m) => ({ default: m.WebhookDetail })));
const Webhooks = lazy(() => load.Webhooks().then((m) => ({ default: m.Webhooks })));
const Overview = lazy(() => load.Overview().then((m) => ({ default: m.Overview })));
const OperatorSignIn = lazy(() => load.SignIn().then((m) => ({ default: m.OperatorSignIn })));
const SignIn = lazy(() => load.SignIn().then((m) => ({ default: m.SignIn })));
const SignUp = lazy(() => load.SignUp().then((m) => ({ default: m.SignUp })));
const ForgotPassword = lazy(() => load.ForgotPassword().then((m) => ({ default: m.ForgotPassword })));
const ResetPassword = lazy(() => load.ResetPassword().then((m) => ({ default: m.ResetPassword })));
const VerifyEmail = lazy(() => load.VerifyEmail().then((m) => ({ default: m.VerifyEmail })));

/** The chunk of each page by its path, asked for as the app starts (preloadPage). */
const FIRST_LOADS: [string, () => Promise<unknown>][] = [
  ['/sign-in', load.SignIn],
  ['/operator-sign-in', load.SignIn],
  ['/sign-up', load.SignUp],
  ['/verify-email', load.VerifyEmail],
  ['/reset-password', load.ResetPassword],
  ['/forgot-password', load.ForgotPassword],
  ['/', load.Overview],
  ['/operations', load.OperatorHome],
  ['/review/claims', load.ClaimsToReview],
  ['/review/appeals', load.AppealsToReview],
  ['/tenants', load.Tenants],
  ['/usage', load.Usage],
  ['/licenses', load.Licenses],
  ['/licenses/:id', load.Licenses],
  ['/violations', load.Violations],
  ['/obligations', load.Obligations],
  ['/keys', load.Keys],
  ['/webhooks', load.Webhooks],
  ['/webhooks/:id', load.WebhookDetail],
  ['/claims', load.Claims],
  ['/claims/new', load.NewClaim],
  ['/claims/:id', load.ClaimDetail],
  ['/boxes', load.Boxes],
  ['/earnings', load.Earnings],
  ['/boxes/:id', load.BoxDetail],
  ['/account', load.AccountSecurity],
];

/**
 * Asks for the chunk of the page being opened while the session is read, so that the page does
 * not wait for the session, then its code, then its data, one after the other.
 */
export function preloadPage(pathname: string): void {
  const found = FIRST_LOADS.find(([pattern]) => matchPath(pattern, pathname) !== null);
  if (found !== undefined) void found[1]();
}

/** Signed-out pages: a signed-in visitor goes to the overview. */
function SignedOut({ children }: { children: React.ReactNode }) {
  const { data: session, isPending } = useSession();
  if (isPending) return <p role="status">Loading…</p>;
  if (session !== null && session !== undefined) return <Navigate to="/" replace />;
  return <>{children}</>;
}

export function App() {
  return (
    <Suspense fallback={<p role="status">Loading…</p>}>
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
    </Suspense>
  );
}
