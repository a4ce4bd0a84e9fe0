import { useEffect, useRef, type ReactNode } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession, useSignOut, type Role } from '../api/session';
import { PageSuspense } from './PageSuspense';

const NAV: Record<Role, { to: string; label: string }[]> = {
  creator: [
    { to: '/', label: 'Overview' },
    { to: '/claims', label: 'Claims' },
    { to: '/boxes', label: 'Boxes' },
    { to: '/earnings', label: 'Royalties' },
    { to: '/members', label: 'Members' },
  ],
  platform: [
    { to: '/', label: 'Overview' },
    { to: '/keys', label: 'API keys' },
    { to: '/logs', label: 'Request log' },
    { to: '/webhooks', label: 'Webhooks' },
    { to: '/usage', label: 'Plan and usage' },
    { to: '/licenses', label: 'Licenses' },
    { to: '/violations', label: 'Violations' },
    { to: '/obligations', label: 'Obligations' },
    { to: '/billing', label: 'What you owe' },
    { to: '/members', label: 'Members' },
  ],
  operator: [
    { to: '/', label: 'Overview' },
    { to: '/operations', label: 'Operations' },
    { to: '/review/claims', label: 'Claims to verify' },
    { to: '/review/appeals', label: 'Appeals' },
    { to: '/tenants', label: 'Platforms and creators' },
  ],
};

/** The frame of every signed-in page: skip link, header with navigation and sign-out, one main landmark. */
export function Layout({
  preloadWhenIdle,
}: {
  /** Asks for the code of the pages these paths open, when the browser is idle (App's pages.ts). */
  preloadWhenIdle?: (paths: string[]) => () => void;
}) {
  const { data: session } = useSession();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  // Focus moves to the new page's content, so a screen reader starts reading there.
  useEffect(() => {
    main.current?.focus();
  }, [location.pathname]);
  // Once the page is in, the pages its links open load while the browser is idle, so that a click
  // on them opens the page at once.
  const role = session?.account.role;
  useEffect(
    () =>
      role === undefined || preloadWhenIdle === undefined
        ? undefined
        : preloadWhenIdle([...NAV[role].map((item) => item.to), '/account']),
    [role, preloadWhenIdle],
  );
  if (session === undefined || session === null) return null;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Identity protection</span>
        <nav aria-label="Main">
          <ul>
            {NAV[session.account.role].map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.to === '/'}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {session.account.name} <span className="badge">{session.account.role}</span>{' '}
            {session.environment === 'sandbox' ? <span className="badge sandbox">sandbox</span> : null}
          </span>
          {/* The reference is the gateway's page, not one of the app's routes. */}
          <a href="/docs">API reference</a>
          <NavLink to="/account">Account security</NavLink>
          <button
            type="button"
            className="link-button"
            onClick={() =>
              signOut.mutate(undefined, { onSettled: () => void navigate('/sign-in', { replace: true }) })
            }
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {/* A page's chunk loads under the frame, which stays. */}
        <PageSuspense>
          <Outlet />
        </PageSuspense>
      </main>
    </>
  );
}

/** The frame of the signed-out pages. */
export function PublicFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main id="main" className="narrow">
      <p className="brand">Identity protection</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
