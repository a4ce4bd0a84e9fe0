import { useState } from 'react';
import { formatDateTime, formatNumber } from '../../api/format';
import { useBoxViolations, type BoxViolation, type ViolationStatus } from '../../api/owner';
import { logEntryOf } from '../../api/proofs';
import { useClockNow } from '../../api/sandbox-clock';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { ProofPanel, type ProofTarget } from '../../components/ProofPanel';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';
import { GracePeriod, Resolution, ContestForm } from './ViolationResolution';

const FILTERS: FilterOption<ViolationStatus | 'all'>[] = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending (in their grace period)' },
  { value: 'appealed', label: 'Appealed (grace period paused)' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'enforced', label: 'Enforced (grace period ran out)' },
  { value: 'dismissed', label: 'Dismissed' },
];

/**
 * The logged decisions of a violation row: the violation's newest, and its appeal's or contest's
 * once decided (docs/spec/contracts.md §16), each with a button that verifies it in the browser.
 */
function ViolationProofs({
  violation,
  onVerify,
}: {
  violation: BoxViolation;
  onVerify: (target: ProofTarget) => void;
}) {
  const loose = violation as { appeal?: unknown };
  const logged = [
    { kind: 'violation', entry: logEntryOf(violation) },
    { kind: 'appeal', entry: logEntryOf(loose.appeal) },
    { kind: 'contest', entry: logEntryOf(violation.resolution?.contest) },
  ].filter((item) => item.entry !== undefined);
  if (logged.length === 0) return <span className="hint">not logged yet</span>;
  return (
    <div className="proof-actions">
      {logged.map(({ kind, entry }) => {
        if (entry === undefined) return null;
        const what = `the ${kind} of ${violation.avatar.name}`;
        return (
          <button
            key={kind}
            type="button"
            className="link-button"
            aria-label={`Verify log entry of ${what}`}
            onClick={() => onVerify({ kind: 'log-entry', what, entry })}
          >
            Verify log entry{logged.length > 1 ? ` (${kind})` : ''}
          </button>
        );
      })}
    </div>
  );
}

/**
 * Violations of a box on every platform (GET /boxes/{id}/violations: what the interface gives the
 * owner, never the hosting platform's personal data), newest first, paged, with their grace periods.
 */
export function BoxViolations({ boxId }: { boxId: string }) {
  const [filter, setFilter] = useState<ViolationStatus | 'all'>('all');
  const [offset, setOffset] = useState(0);
  const [contesting, setContesting] = useState<BoxViolation | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [proof, setProof] = useState<ProofTarget | undefined>(undefined);
  const violations = useBoxViolations(boxId, filter === 'all' ? undefined : filter, offset, PAGE_SIZE);
  const now = useClockNow();
  return (
    <section aria-labelledby="violations-title">
      <div className="section-head">
        <h2 id="violations-title">Violations and grace periods</h2>
        <button
          type="button"
          className="secondary"
          disabled={violations.isFetching}
          onClick={() => void violations.refetch()}
        >
          Refresh violations
        </button>
      </div>
      <StatusFilter
        label="Show violations"
        value={filter}
        options={FILTERS}
        onChange={(chosen) => {
          setFilter(chosen);
          setOffset(0);
        }}
      />
      <p role="status" className="notice">
        {notice}
      </p>
      {contesting === undefined ? null : (
        <ContestForm
          key={contesting.id}
          violation={contesting}
          boxId={boxId}
          onDone={(done) => {
            setContesting(undefined);
            setNotice(done);
          }}
        />
      )}
      <QueryState isPending={violations.isPending} error={violations.error} what="violations">
        {() =>
          violations.data === undefined || violations.data.meta.total === 0 ? (
            <p className="empty">
              {filter === 'all'
                ? 'No violation so far. When a platform reports an avatar that uses this identity against the policy, it shows here with its 30-day grace period (24 hours in the sandbox); nothing is needed from you.'
                : 'No violation in this state. Choose “All” to see every one.'}
            </p>
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Violations of this box, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Avatar</th>
                      <th scope="col">Platform</th>
                      <th scope="col">Detected</th>
                      <th scope="col">Severity</th>
                      <th scope="col">Status</th>
                      <th scope="col">Grace period</th>
                      <th scope="col">Resolution</th>
                      <th scope="col">Proof</th>
                    </tr>
                  </thead>
                  <tbody>
                    {violations.data.data.map((violation) => (
                      <tr key={violation.id}>
                        <td>
                          {violation.avatar.name}
                          <br />
                          <span className="hint">
                            {formatNumber(violation.avatar.userCount)} users ·{' '}
                            {violation.detection.classification} (
                            {Math.round(violation.detection.confidence * 100)} %)
                            {violation.avatar.status === 'removed' ? ' · removed' : ''}
                          </span>
                        </td>
                        <td>{violation.platformName ?? <code>{violation.platformId}</code>}</td>
                        <td>{formatDateTime(violation.detectedAt)}</td>
                        <td>{violation.severity}</td>
                        <td>
                          <span className={`badge ${violation.status === 'resolved' ? 'ok' : ''}`}>
                            {violation.status}
                          </span>
                        </td>
                        <td>
                          <GracePeriod violation={violation} now={now} />
                        </td>
                        <td>
                          <Resolution
                            violation={violation}
                            onContest={() => {
                              setNotice(undefined);
                              setContesting(violation);
                            }}
                          />
                        </td>
                        <td>
                          <ViolationProofs violation={violation} onVerify={setProof} />
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
              {proof === undefined ? null : (
                <ProofPanel
                  key={`${proof.kind}:${proof.what}`}
                  target={proof}
                  onClose={() => setProof(undefined)}
                />
              )}
            </>
          )
        }
      </QueryState>
    </section>
  );
}
