import { Link } from 'react-router';
import { useAppealsToReview, useClaimsToReview, useDeadLetters } from '../../api/operator';
import { QueryState } from '../../components/Status';

function Health() {
  const dead = useDeadLetters();
  return (
    <QueryState isPending={dead.isPending} error={dead.error} what="system health">
      {() =>
        dead.data === undefined ? null : (
          <>
            <ul className="cards">
              {dead.data.data.map((queue) => (
                <li key={`${queue.service}/${queue.queue}`} className="card">
                  <strong>{queue.service}</strong> <code>{queue.queue}</code>{' '}
                  <span className={`badge ${queue.depth === 0 ? 'ok' : 'warn'}`}>
                    {queue.depth} dead letter{queue.depth === 1 ? '' : 's'}
                  </span>
                </li>
              ))}
            </ul>
            {dead.data.meta.unreachable.length === 0 ? (
              <p role="status">Every service answered.</p>
            ) : (
              <p role="alert">Not answering: {dead.data.meta.unreachable.map((u) => u.service).join(', ')}</p>
            )}
          </>
        )
      }
    </QueryState>
  );
}

/** The operator's desk: what waits for a decision, and system health. */
export function OperatorHome() {
  const claims = useClaimsToReview(0, 1);
  const appeals = useAppealsToReview(0, 1);
  const waiting = (total: number | undefined) => (total === undefined ? '…' : String(total));
  return (
    <section aria-labelledby="operator-title">
      <h1 id="operator-title">Operations</h1>
      <ul className="cards">
        <li className="card">
          <Link to="/review/claims">Claims waiting for verification: {waiting(claims.data?.meta.total)}</Link>
        </li>
        <li className="card">
          <Link to="/review/appeals">Appeals awaiting a decision: {waiting(appeals.data?.meta.total)}</Link>
        </li>
        <li className="card">
          <Link to="/tenants">Platforms and creators</Link>
        </li>
      </ul>
      <h2>System health: dead letters by queue</h2>
      <Health />
    </section>
  );
}
