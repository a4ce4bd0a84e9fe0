import { Route } from 'react-router';
import { RequireSession } from './components/RequireSession';
import { NotFound } from './pages/NotFound';
import {
  AccountSecurity,
  AppealsToReview,
  BoxDetail,
  Boxes,
  ClaimDetail,
  Claims,
  ClaimsToReview,
  Earnings,
  Keys,
  LicenseDetail,
  Licenses,
  Members,
  NewClaim,
  Obligations,
  OperatorHome,
  Overview,
  Tenants,
  Usage,
  Violations,
  RequestLogs,
  WebhookEvents,
  Billing,
  ViolationDetail,
  WebhookDetail,
  Webhooks,
} from './pages';

// The pages behind a session, each with the roles that may open it (the layout is the parent route).

/** The routes inside the signed-in layout, as its children. */
export function sessionRoutes() {
  return (
    <>
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
    </>
  );
}
