import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime, formatNumber, formatRemaining } from '../../api/format';
import { useViolations, type ViolationStatus } from '../../api/platform-activity';
import { useClockNow } from '../../api/sandbox-clock';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';
import { SandboxClock } from './SandboxClock';

const STATUSES: FilterOption<ViolationStatus | ''>[] = [
  { value: '', label: 'Every status' },
  { value: 'pending', label: 'Pending: in the grace period' },
  { value: 'appealed', label: 'Appealed: the grace period is paused' },
  { value: 'enforced', label: 'Enforced: take the avatar down' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'dismissed', label: 'Dismissed' },
];

const BADGE: Record<ViolationStatus, string> = {
  pending: 'warn',
  appealed: 'warn',
  enforced: 'warn',
  resolved: 'ok',
  dismissed: 'ok',
};

/** The violations of avatars the platform hosts, with each grace period's deadline. */
export function Violations() {
  const [status, setStatus] = useState<ViolationStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const violations = useViolations(status === '' ? undefined : status, offset, PAGE_SIZE);
  // The deadline is counted down on the tenant's clock (the sandbox's, in the sandbox).
  const now = useClockNow();
  return (
    <section aria-labelledby="violations-title">
      <h1 id="violations-title">Violations</h1>
      <StatusFilter
        label="Show"
        value={status}
        options={STATUSES}
        onChange={(chosen) => {
          setStatus(chosen);
          setOffset(0);
        }}
      />
      <QueryState isPending={violations.isPending} error={violations.error} what="violations">
        {() =>
          violations.data === undefined || violations.data.meta.total === 0 ? (
            <p className="empty">
              {status === ''
                ? 'No violations: every avatar you reported is allowed. Report avatars with POST /v1/svc/avatars; one that breaks a box appears here with its grace period.'
                : 'No violations with this status. Choose "Every status" to see them all.'}
            </p>
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Violations of avatars you host, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Identity</th>
                      <th scope="col">Avatar</th>
                      <th scope="col">Severity</th>
                      <th scope="col">Status</th>
                      <th scope="col">Grace period ends</th>
                    </tr>
                  </thead>
                  <tbody>
                    {violations.data.data.map((violation) => (
                      <tr key={violation.id}>
                        <td>
                          <Link to={`/violations/${violation.id}`}>{violation.identityName}</Link>
                          <br />
                          <code>{violation.id}</code>
                        </td>
                        <td>
                          {violation.avatar.name} (<code>{violation.avatar.id}</code>,{' '}
                          {formatNumber(violation.avatar.userCount)} users)
                        </td>
                        <td>{violation.severity}</td>
                        <td>
                          <span className={`badge ${BADGE[violation.status]}`}>{violation.status}</span>
                        </td>
                        <td>
                          {violation.status === 'pending'
                            ? `${formatDateTime(violation.gracePeriod.expiresAt)} (${formatRemaining(Date.parse(violation.gracePeriod.expiresAt), now)})`
                            : violation.status === 'appealed'
                              ? 'Paused while the appeal is reviewed'
                              : violation.status === 'enforced'
                                ? 'Ended: take the avatar down'
                                : '—'}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={violations.data.meta.total}
                onChange={setOffset}
                label="Violations"
              />
            </>
          )
        }
      </QueryState>
      <SandboxClock />
    </section>
  );
}
