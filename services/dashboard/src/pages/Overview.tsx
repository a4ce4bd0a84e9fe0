import { Link } from 'react-router';
import { formatDateTime } from '../api/format';
import { useSession } from '../api/session';

/** The first page after sign-in: what this account can do next. */
export function Overview() {
  const { data: session } = useSession();
  if (session === undefined || session === null) return null;
  const { account } = session;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Welcome, {account.name}</h1>
      {account.role === 'creator' ? (
        <div className="empty">
          <p>
            Claim an identity (a name, its variations, reference pictures), verify it, then protect it with a
            box.
          </p>
          <p>
            <Link className="button" to="/claims/new">
              Claim an identity
            </Link>
          </p>
        </div>
      ) : null}
      {account.role === 'platform' ? (
        <div className="empty">
          <p>Create an API key to call the API from your platform; its secret is shown once.</p>
          <p>
            <Link className="button" to="/keys">
              Manage API keys
            </Link>
          </p>
        </div>
      ) : null}
      {account.role === 'operator' ? (
        <div className="empty">
          <p>Platforms and creators, claims waiting for verification, appeals and system health.</p>
          <p>
            <Link className="button" to="/operations">
              Open operations
            </Link>
          </p>
        </div>
      ) : null}
      <dl className="facts">
        <dt>Signed in as</dt>
        <dd>{account.email}</dd>
        <dt>Session ends</dt>
        <dd>{formatDateTime(session.expiresAt)}</dd>
      </dl>
    </section>
  );
}
