import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatDateTime, formatMoney, formatNumber, formatPercent } from '../../api/format';
import {
  useApproveRequest,
  useBoxLicenseRequests,
  useDenyRequest,
  type BoxLicenseRequest,
  type RequestStatus,
} from '../../api/owner';
import { logEntryOf } from '../../api/proofs';
import { Field, FormError } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { ProofPanel, type ProofTarget } from '../../components/ProofPanel';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';

function date(iso: string | null | undefined): string {
  return iso === null || iso === undefined ? '—' : formatDateTime(iso);
}

/** One pending request's decision: approve (pricing it when it has no list price) or deny with a reason. */
function Decide({
  request,
  boxId,
  onDecided,
}: {
  request: BoxLicenseRequest;
  boxId: string;
  onDecided: (notice: string) => void;
}) {
  const approve = useApproveRequest(boxId);
  const deny = useDenyRequest(boxId);
  const [denying, setDenying] = useState(false);
  const needsPrice = request.pricing.monthlyFee === null;
  const who = `${request.licenseePlatformName}’s ${request.tier} request`;
  const onApprove = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const fee = String(new FormData(event.currentTarget).get('monthlyFee') ?? '').trim();
    approve.mutate(
      { id: request.id, monthlyFee: needsPrice && fee !== '' ? Number(fee) : undefined },
      {
        onSuccess: (decided) => onDecided(`Approved ${who}: license ${decided.license?.id ?? ''} is active.`),
      },
    );
  };
  const onDeny = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    deny.mutate(
      { id: request.id, reason: String(new FormData(event.currentTarget).get('reason') ?? '') },
      { onSuccess: () => onDecided(`Denied ${who}; the platform is told the reason.`) },
    );
  };
  return (
    <div className="decide">
      <form onSubmit={onApprove} noValidate aria-label={`Approve ${who}`}>
        {needsPrice ? (
          <Field
            label="Monthly fee (this tier has no list price)"
            name="monthlyFee"
            type="number"
            min="0"
            step="0.01"
            error={fieldError(approve.error, 'monthlyFee')}
          />
        ) : null}
        <FormError error={formError(approve.error, ['monthlyFee'])} />
        <button type="submit" disabled={approve.isPending || deny.isPending} aria-label={`Approve ${who}`}>
          {approve.isPending ? 'Approving…' : 'Approve'}
        </button>
      </form>
      {denying ? (
        <form onSubmit={onDeny} noValidate aria-label={`Deny ${who}`}>
          <Field
            label="Reason for denying"
            name="reason"
            hint="Sent to the platform with the decision."
            error={fieldError(deny.error, 'reason')}
          />
          <FormError error={formError(deny.error, ['reason'])} />
          <div className="actions">
            <button type="submit" className="danger" disabled={deny.isPending}>
              {deny.isPending ? 'Denying…' : 'Deny request'}
            </button>
            <button type="button" className="secondary" onClick={() => setDenying(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button
          type="button"
          className="secondary"
          aria-label={`Deny ${who}…`}
          disabled={approve.isPending}
          onClick={() => setDenying(true)}
        >
          Deny…
        </button>
      )}
    </div>
  );
}

function RequestCard({
  request,
  boxId,
  onDecided,
}: {
  request: BoxLicenseRequest;
  boxId: string;
  onDecided: (notice: string) => void;
}) {
  const { pricing } = request;
  return (
    <li className="card" aria-labelledby={`${request.id}-title`}>
      <h3 id={`${request.id}-title`}>
        {request.licenseePlatformName}: {request.tier} license{' '}
        <span className={`badge ${request.status === 'approved' ? 'ok' : ''}`}>{request.status}</span>
      </h3>
      <dl className="facts">
        <dt>Use</dt>
        <dd>{request.useCase}</dd>
        {request.estimatedUsers === null ? null : (
          <>
            <dt>Estimated users</dt>
            <dd>{formatNumber(request.estimatedUsers)}</dd>
          </>
        )}
        {request.message === null ? null : (
          <>
            <dt>Message</dt>
            <dd>{request.message}</dd>
          </>
        )}
        <dt>Price</dt>
        <dd>
          {pricing.monthlyFee === null
            ? 'no list price: you set it when approving'
            : `${formatMoney(pricing.monthlyFee, pricing.currency)} a month`}
          , royalty {formatPercent(pricing.royaltyRate)}
        </dd>
        <dt>Submitted</dt>
        <dd>{date(request.submittedAt)}</dd>
        {request.status === 'approved' ? (
          <>
            <dt>License</dt>
            <dd>{request.licenseId}</dd>
            <dt>Approved</dt>
            <dd>{date(request.decidedAt)}</dd>
          </>
        ) : null}
        {request.status === 'denied' ? (
          <>
            <dt>Reason</dt>
            <dd>{request.reason}</dd>
            <dt>Denied</dt>
            <dd>{date(request.decidedAt)}</dd>
          </>
        ) : null}
      </dl>
      {request.status === 'pending' ? <Decide request={request} boxId={boxId} onDecided={onDecided} /> : null}
    </li>
  );
}

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
