import { useState } from 'react';
import { formatMoney } from '../../api/format';
import { useBoxLicenseRequests, type BoxLicenseRequest, type RequestStatus } from '../../api/owner';
import { logEntryOf } from '../../api/proofs';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { ProofPanel, type ProofTarget } from '../../components/ProofPanel';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';
import { date, RequestCard } from './LicenseRequestCard';

const FILTERS: FilterOption<RequestStatus | 'all'>[] = [
  { value: 'pending', label: 'Waiting for your decision' },
  { value: 'approved', label: 'Approved' },
  { value: 'denied', label: 'Denied' },
  { value: 'all', label: 'All' },
];

/** License requests on one box, newest first, paged, with a decision on each pending one. */
export function LicenseRequests({ boxId }: { boxId: string }) {
  const [filter, setFilter] = useState<RequestStatus | 'all'>('pending');
  const [offset, setOffset] = useState(0);
  // A decided request leaves the waiting list: the decision is announced where it was.
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const status = filter === 'all' ? undefined : filter;
  const requests = useBoxLicenseRequests(boxId, status, offset, PAGE_SIZE);
  return (
    <section aria-labelledby="requests-title">
      <div className="section-head">
        <h2 id="requests-title">License requests</h2>
        <button
          type="button"
          className="secondary"
          disabled={requests.isFetching}
          onClick={() => void requests.refetch()}
        >
          Refresh requests
        </button>
      </div>
      <StatusFilter
        label="Show requests"
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
      <QueryState isPending={requests.isPending} error={requests.error} what="license requests">
        {() =>
          requests.data === undefined || requests.data.meta.total === 0 ? (
            <p className="empty">
              {filter === 'pending'
                ? 'No request is waiting for your decision. Platforms ask for a license from the API; a tier set to approve automatically never waits here.'
                : 'No requests here yet. With a LICENSE policy, platforms request a license of a tier you offer; set the prices in the policy below.'}
            </p>
          ) : (
            <>
              <ul className="request-list" aria-label="License requests">
                {requests.data.data.map((request) => (
                  <RequestCard key={request.id} request={request} boxId={boxId} onDecided={setNotice} />
                ))}
              </ul>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={requests.data.meta.total}
                onChange={setOffset}
                label="License requests"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}

/** A granted license's newest logged decision, as the box owner's list of requests carries it. */
function licenseLogEntry(request: BoxLicenseRequest) {
  return logEntryOf({ logEntry: request.licenseLogEntry });
}

/** Verify buttons of one granted license: its credential, and its newest logged decision once logged. */
function LicenseProofs({
  request,
  identityName,
  onVerify,
}: {
  request: BoxLicenseRequest;
  identityName: string | undefined;
  onVerify: (target: ProofTarget) => void;
}) {
  const licenseId = request.licenseId;
  if (licenseId === null) return <>—</>;
  const entry = licenseLogEntry(request);
  const what = `license ${licenseId}`;
  // Named by who holds it, not by its id: the row's license cell alone is named by the id.
  const whose = `${request.licenseePlatformName}’s ${request.tier} license`;
  return (
    <div className="proof-actions">
      <button
        type="button"
        className="link-button"
        aria-label={`Verify credential of ${whose}`}
        onClick={() =>
          onVerify({
            kind: 'credential',
            what: `${what} (${request.licenseePlatformName})`,
            license: {
              licenseId,
              identityName,
              tier: request.tier,
              platformId: request.licenseePlatformId,
              boxId: request.boxId,
            },
          })
        }
      >
        Verify credential
      </button>
      {entry === undefined ? null : (
        <button
          type="button"
          className="link-button"
          aria-label={`Verify log entry of ${whose}`}
          onClick={() => onVerify({ kind: 'log-entry', what, entry })}
        >
          Verify log entry
        </button>
      )}
    </div>
  );
}

/**
 * Licenses granted on the box: its approved requests (the owner's view of its licenses), paged;
 * each license's credential and log entry can be verified here (issue #31).
 */
export function GrantedLicenses({
  boxId,
  active,
  identityName,
}: {
  boxId: string;
  active: number | undefined;
  identityName?: string | undefined;
}) {
  const [offset, setOffset] = useState(0);
  const [proof, setProof] = useState<ProofTarget | undefined>(undefined);
  const granted = useBoxLicenseRequests(boxId, 'approved', offset, PAGE_SIZE);
  return (
    <section aria-labelledby="granted-title">
      <h2 id="granted-title">Licenses granted</h2>
      {active === undefined ? null : (
        <p>
          {active} {active === 1 ? 'license is' : 'licenses are'} active now.
        </p>
      )}
      <QueryState isPending={granted.isPending} error={granted.error} what="licenses">
        {() =>
          granted.data === undefined || granted.data.meta.total === 0 ? (
            <p className="empty">
              No license granted yet. Approve a platform’s request above, or let a tier approve automatically.
            </p>
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Licenses granted on this box, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Platform</th>
                      <th scope="col">Tier</th>
                      <th scope="col">Monthly fee</th>
                      <th scope="col">License</th>
                      <th scope="col">Granted</th>
                      <th scope="col">Proof</th>
                    </tr>
                  </thead>
                  <tbody>
                    {granted.data.data.map((request) => (
                      <tr key={request.id}>
                        <td>{request.licenseePlatformName}</td>
                        <td>{request.tier}</td>
                        <td>
                          {request.pricing.monthlyFee === null
                            ? '—'
                            : formatMoney(request.pricing.monthlyFee, request.pricing.currency)}
                        </td>
                        <td>{request.licenseId}</td>
                        <td>{date(request.decidedAt)}</td>
                        <td>
                          <LicenseProofs request={request} identityName={identityName} onVerify={setProof} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={granted.data.meta.total}
                onChange={setOffset}
                label="Licenses granted"
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
