import { Link } from 'react-router';
import {
  useAppealsToReview,
  useClaimsToReview,
  useDeadLetters,
  useSystemHealth,
  type ServiceHealth,
} from '../../api/operator';
import { QueryState } from '../../components/Status';

/** "42 s", "3 min", "2 h 5 min", "3 d": how long the oldest event has waited. */
function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d`;
}

/** Ready or not, in words, with what failed or is degraded (the badge colour only repeats it). */
function Readiness({ row, answered }: { row: ServiceHealth; answered: boolean }) {
  if (!answered) return <span className="badge warn">Not answering</span>;
  const notes = row.checks.filter((check) => check.result !== 'ok');
  return (
    <>
      <span className={`badge ${row.ready ? 'ok' : 'warn'}`}>{row.ready ? 'Ready' : 'Not ready'}</span>
      {notes.map((check) => (
        <div key={check.name} className="hint">
          {check.name}: {check.result}
        </div>
      ))}
    </>
  );
}

function HealthTable() {
  const health = useSystemHealth();
  return (
    <QueryState isPending={health.isPending} error={health.error} what="system health">
      {() => {
        if (health.data === undefined) return null;
        const unreachable = new Set(health.data.meta.unreachable.map((u) => u.service));
        // The gateway publishes nothing and has no queues; a service that did not answer is unknown.
        const figures = (row: ServiceHealth): [string, string, string] => {
          if (unreachable.has(row.service)) return ['unknown', 'unknown', 'unknown'];
          if (row.service === 'gateway') return ['n/a', 'n/a', 'n/a'];
          const backlog = row.outboxBacklog === null ? 'unknown' : String(row.outboxBacklog);
          const oldest =
            row.outboxBacklog === 0
              ? 'none waiting'
              : row.oldestUnsentSeconds === null
                ? 'unknown'
                : formatAge(row.oldestUnsentSeconds);
          return [backlog, oldest, row.deadLetters === null ? 'unknown' : String(row.deadLetters)];
        };
        return (
          <>
            <div className="table-wrap" tabIndex={0}>
              <table>
                <caption className="visually-hidden">
                  System health: each service&apos;s readiness, outbox and dead letters
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">Ready</th>
                    <th scope="col">Outbox backlog</th>
                    <th scope="col">Oldest unsent</th>
                    <th scope="col">Dead letters</th>
                  </tr>
                </thead>
                <tbody>
                  {health.data.data.map((row) => {
                    const [backlog, oldest, deadLetters] = figures(row);
                    return (
                      <tr key={row.service}>
                        <th scope="row">{row.service}</th>
                        <td>
                          <Readiness row={row} answered={!unreachable.has(row.service)} />
                        </td>
                        <td>{backlog}</td>
                        <td>{oldest}</td>
                        <td>{deadLetters}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {unreachable.size === 0 ? (
              <p role="status">Every service answered.</p>
            ) : (
              <p role="alert">Not answering: {[...unreachable].join(', ')}</p>
            )}
          </>
        );
      }}
    </QueryState>
  );
}

/** The queues that hold dead letters, by service (the table gives each service's total). */
function DeadLetterQueues() {
  const dead = useDeadLetters();
  const holding = dead.data?.data.filter((queue) => queue.depth > 0) ?? [];
  if (holding.length === 0) return null;
  return (
    <>
      <h3>Queues holding dead letters</h3>
      <ul className="cards">
        {holding.map((queue) => (
          <li key={`${queue.service}/${queue.queue}`} className="card">
            <strong>{queue.service}</strong> <code>{queue.queue}</code>{' '}
            <span className="badge warn">
              {queue.depth} dead letter{queue.depth === 1 ? '' : 's'}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The operator's desk: what waits for a decision, and system health. */
export function OperatorHome() {
  const claims = useClaimsToReview('pending', 0, 1);
  const appeals = useAppealsToReview('pending', 0, 1);
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
      <h2>System health</h2>
      <HealthTable />
      <DeadLetterQueues />
    </section>
  );
}
