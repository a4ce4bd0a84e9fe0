import { useState } from 'react';
import { Link } from 'react-router';
import { useViolations, type ViolationStatus } from '../../api/platform-activity';
import { SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { SandboxClock } from './SandboxClock';

const STATUSES: { value: ViolationStatus | ''; label: string }[] = [
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
  return (
    <section aria-labelledby="violations-title">
      <h1 id="violations-title">Violations</h1>
      <SelectField
        label="Show"
        name="status"
        value={status}
        onChange={(event) => {
          setStatus(event.target.value as ViolationStatus | '');
          setOffset(0);
        }}
      >
        {STATUSES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectField>
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
                          {violation.avatar.userCount.toLocaleString()} users)
                        </td>
                        <td>{violation.severity}</td>
                        <td>
                          <span className={`badge ${BADGE[violation.status]}`}>{violation.status}</span>
                        </td>
                        <td>
                          {violation.status === 'pending'
                            ? `${new Date(violation.gracePeriod.expiresAt).toLocaleString()} (${violation.gracePeriod.daysRemaining} day${violation.gracePeriod.daysRemaining === 1 ? '' : 's'} left)`
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
