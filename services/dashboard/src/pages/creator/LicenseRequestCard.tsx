import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatDateTime, formatMoney, formatNumber, formatPercent } from '../../api/format';
import { useApproveRequest, useDenyRequest, type BoxLicenseRequest } from '../../api/owner';
import { Field, FormError } from '../../components/Field';

// One license request on a box: what was asked, and the owner's decision on a pending one.

export function date(iso: string | null | undefined): string {
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

export function RequestCard({
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
