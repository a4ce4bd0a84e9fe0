import { lazy } from 'react';
import { matchPath } from 'react-router';

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
  Billing: () => import('./pages/platform/Billing'),
  Keys: () => import('./pages/platform/Keys'),
  RequestLogs: () => import('./pages/platform/RequestLogs'),
  Licenses: () => import('./pages/platform/Licenses'),
  Obligations: () => import('./pages/platform/Obligations'),
  Usage: () => import('./pages/platform/Usage'),
  Violations: () => import('./pages/platform/Violations'),
  ViolationDetail: () => import('./pages/platform/ViolationDetail'),
  WebhookDetail: () => import('./pages/platform/WebhookDetail'),
  Webhooks: () => import('./pages/platform/Webhooks'),
  WebhookEvents: () => import('./pages/platform/WebhookEvents'),
  Overview: () => import('./pages/Overview'),
  SignIn: () => import('./pages/SignIn'),
  SignUp: () => import('./pages/SignUp'),
  ForgotPassword: () => import('./pages/account-mail/ForgotPassword'),
  ResetPassword: () => import('./pages/account-mail/ResetPassword'),
  VerifyEmail: () => import('./pages/account-mail/VerifyEmail'),
  AcceptInvitation: () => import('./pages/account-mail/AcceptInvitation'),
  Members: () => import('./pages/members/Members'),
};

export const AccountSecurity = lazy(() =>
  load.AccountSecurity().then((m) => ({ default: m.AccountSecurity })),
);
export const BoxDetail = lazy(() => load.BoxDetail().then((m) => ({ default: m.BoxDetail })));
export const Boxes = lazy(() => load.Boxes().then((m) => ({ default: m.Boxes })));
export const ClaimDetail = lazy(() => load.ClaimDetail().then((m) => ({ default: m.ClaimDetail })));
export const Claims = lazy(() => load.Claims().then((m) => ({ default: m.Claims })));
export const Earnings = lazy(() => load.Earnings().then((m) => ({ default: m.Earnings })));
export const NewClaim = lazy(() => load.NewClaim().then((m) => ({ default: m.NewClaim })));
export const AppealsToReview = lazy(() =>
  load.AppealsToReview().then((m) => ({ default: m.AppealsToReview })),
);
export const ClaimsToReview = lazy(() => load.ClaimsToReview().then((m) => ({ default: m.ClaimsToReview })));
export const OperatorHome = lazy(() => load.OperatorHome().then((m) => ({ default: m.OperatorHome })));
export const Tenants = lazy(() => load.Tenants().then((m) => ({ default: m.Tenants })));
export const Billing = lazy(() => load.Billing().then((m) => ({ default: m.Billing })));
export const Keys = lazy(() => load.Keys().then((m) => ({ default: m.Keys })));
export const RequestLogs = lazy(() => load.RequestLogs().then((m) => ({ default: m.RequestLogs })));
export const LicenseDetail = lazy(() => load.Licenses().then((m) => ({ default: m.LicenseDetail })));
export const Licenses = lazy(() => load.Licenses().then((m) => ({ default: m.Licenses })));
export const Obligations = lazy(() => load.Obligations().then((m) => ({ default: m.Obligations })));
export const Usage = lazy(() => load.Usage().then((m) => ({ default: m.Usage })));
export const Violations = lazy(() => load.Violations().then((m) => ({ default: m.Violations })));
export const ViolationDetail = lazy(() =>
  load.ViolationDetail().then((m) => ({ default: m.ViolationDetail })),
);
export const WebhookDetail = lazy(() => load.WebhookDetail().then((m) => ({ default: m.WebhookDetail })));
export const Webhooks = lazy(() => load.Webhooks().then((m) => ({ default: m.Webhooks })));
export const WebhookEvents = lazy(() => load.WebhookEvents().then((m) => ({ default: m.WebhookEvents })));
export const Overview = lazy(() => load.Overview().then((m) => ({ default: m.Overview })));
export const OperatorSignIn = lazy(() => load.SignIn().then((m) => ({ default: m.OperatorSignIn })));
export const SignIn = lazy(() => load.SignIn().then((m) => ({ default: m.SignIn })));
export const SignUp = lazy(() => load.SignUp().then((m) => ({ default: m.SignUp })));
export const ForgotPassword = lazy(() => load.ForgotPassword().then((m) => ({ default: m.ForgotPassword })));
export const ResetPassword = lazy(() => load.ResetPassword().then((m) => ({ default: m.ResetPassword })));
export const VerifyEmail = lazy(() => load.VerifyEmail().then((m) => ({ default: m.VerifyEmail })));
export const AcceptInvitation = lazy(() =>
  load.AcceptInvitation().then((m) => ({ default: m.AcceptInvitation })),
);
export const Members = lazy(() => load.Members().then((m) => ({ default: m.Members })));

/** The chunk of each page by its path, asked for as the app starts (preloadPage). */
const FIRST_LOADS: [string, () => Promise<unknown>][] = [
  ['/sign-in', load.SignIn],
  ['/operator-sign-in', load.SignIn],
  ['/sign-up', load.SignUp],
  ['/verify-email', load.VerifyEmail],
  ['/accept-invitation', load.AcceptInvitation],
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
  ['/violations/:id', load.ViolationDetail],
  ['/obligations', load.Obligations],
  ['/billing', load.Billing],
  ['/keys', load.Keys],
  ['/logs', load.RequestLogs],
  ['/webhooks', load.Webhooks],
  ['/webhooks/events', load.WebhookEvents],
  ['/webhooks/:id', load.WebhookDetail],
  ['/claims', load.Claims],
  ['/claims/new', load.NewClaim],
  ['/claims/:id', load.ClaimDetail],
  ['/boxes', load.Boxes],
  ['/earnings', load.Earnings],
  ['/boxes/:id', load.BoxDetail],
  ['/account', load.AccountSecurity],
  ['/members', load.Members],
];

/**
 * Asks for the chunk of the page being opened while the session is read, so that the page does
 * not wait for the session, then its code, then its data, one after the other.
 */
export function preloadPage(pathname: string): void {
  const found = FIRST_LOADS.find(([pattern]) => matchPath(pattern, pathname) !== null);
  if (found === undefined) return;
  const opened = found[1]();
  // The signed-out pages link to one another; their chunks follow the one opened, so that a link
  // between them opens the next page at once, without a wait for its code.
  if (SIGNED_OUT_PAGES.includes(found[1])) {
    void opened.then(() => Promise.all(SIGNED_OUT_PAGES.map((loadPage) => loadPage())));
  }
}

const SIGNED_OUT_PAGES: (() => Promise<unknown>)[] = [load.SignIn, load.SignUp, load.ForgotPassword];

/** Asks, when the browser is idle, for the chunks of the pages these links open. */
export function preloadWhenIdle(paths: string[]): () => void {
  const loadAll = () => paths.forEach(preloadPage);
  // Safari has no requestIdleCallback: a timer stands in.
  if ((window as Partial<Window>).requestIdleCallback !== undefined) {
    const handle = window.requestIdleCallback(loadAll, { timeout: 5000 });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = window.setTimeout(loadAll, 2000);
  return () => window.clearTimeout(handle);
}
