import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../api/format';
import { fieldError, formError } from '../../api/form-errors';
import {
  useClaimsToReview,
  useRejectClaim,
  useTenantNames,
  useVerifyClaim,
  type ConflictingClaim,
  type ReviewClaim,
  type ReviewClaimStatus,
} from '../../api/operator';
import { Field, FormError, SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, useListFilters, type FilterOption } from '../../components/StatusFilter';
import { Tenant, type Tenants } from './Tenant';

const FILTERS: readonly FilterOption<ReviewClaimStatus>[] = [
  { value: 'pending', label: 'Waiting for verification' },
  { value: 'verified', label: 'Verified' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'suspended', label: 'Suspended' },
];

function Pictures({ claim }: { claim: Pick<ReviewClaim, 'referenceImages'> }) {
  return (
    <>
      {claim.referenceImages.map((image, index) => (
        <a key={image.id} href={image.url} target="_blank" rel="noreferrer noopener">
          Picture {index + 1}
          {image.isPrimary ? ' (primary)' : ''}{' '}
        </a>
      ))}
    </>
  );
}

/** Another account's claim on the same name, beside the one under review. */
function ConflictCard({ claim, tenants }: { claim: ConflictingClaim; tenants: Tenants }) {
  return (
    <li className="card conflict">
      <h4>
        {claim.name}{' '}
        <span className={`badge ${claim.status === 'verified' ? 'ok' : 'warn'}`}>
          {claim.status === 'verified' ? `verified ${claim.verificationTier}` : claim.status}
        </span>
        {claim.hasBox ? <span className="badge">boxed</span> : null}
      </h4>
      <dl className="facts">
        <dt>Claimed by</dt>
        <dd>
          <Tenant id={claim.ownerPlatformId} tenants={tenants} />
        </dd>
        <dt>Variations</dt>
        <dd>{claim.variations.length === 0 ? 'none' : claim.variations.join(', ')}</dd>
        <dt>Entity</dt>
        <dd>{claim.entityType}</dd>
        <dt>Reference pictures</dt>
        <dd>
          <Pictures claim={claim} />
        </dd>
        <dt>Submitted</dt>
        <dd>{formatDateTime(claim.createdAt)}</dd>
        {claim.verifiedAt === undefined ? null : (
          <>
            <dt>Verified</dt>
            <dd>{formatDateTime(claim.verifiedAt)}</dd>
          </>
        )}
      </dl>
    </li>
  );
}

/** One waiting claim with its decision: verify at a tier, or reject with a reason. */
function ClaimCard({
  claim,
  tenants,
  onDecided,
}: {
  claim: ReviewClaim;
  tenants: Tenants;
  onDecided: (message: string) => void;
}) {
  const verify = useVerifyClaim();
  const reject = useRejectClaim();
  const [decision, setDecision] = useState('SILVER');
  const error = verify.error ?? reject.error;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget).get('reason') ?? '');
    if (decision === 'reject') {
      reject.mutate(
        { id: claim.id, reason },
        { onSuccess: () => onDecided(`Claim of ${claim.name} rejected.`) },
      );
    } else {
      verify.mutate(
        { id: claim.id, tier: decision as 'SILVER' | 'GOLD' },
        { onSuccess: () => onDecided(`Claim of ${claim.name} verified (${decision}).`) },
      );
    }
  };
  const conflictsId = `conflicts-${claim.id}`;
  return (
    <li className="card">
      <h3>
        {claim.name}{' '}
        {claim.alreadyProtected ? (
          <span className="badge warn">Already protected by another account</span>
        ) : claim.conflicts.length > 0 ? (
          <span className="badge warn">Also claimed by another account</span>
        ) : null}
      </h3>
      <div className={claim.conflicts.length === 0 ? undefined : 'compare'}>
        <section aria-label="This claim">
          {claim.conflicts.length === 0 ? null : <h4>This claim</h4>}
          <dl className="facts">
            <dt>Entity</dt>
            <dd>{claim.entityType}</dd>
            {claim.variations.length === 0 ? null : (
              <>
                <dt>Variations</dt>
                <dd>{claim.variations.join(', ')}</dd>
              </>
            )}
            <dt>Reference pictures</dt>
            <dd>
              <Pictures claim={claim} />
            </dd>
            <dt>Claimed by</dt>
            <dd>
              <Tenant id={claim.ownerPlatformId} tenants={tenants} />
            </dd>
            <dt>Submitted</dt>
            <dd>{formatDateTime(claim.createdAt)}</dd>
          </dl>
        </section>
        {claim.conflicts.length === 0 ? null : (
          <section aria-labelledby={conflictsId}>
            <h4 id={conflictsId}>
              The same name, claimed by {claim.conflicts.length === 1 ? 'another account' : 'other accounts'}
            </h4>
            <p className="hint">
              {claim.alreadyProtected
                ? 'Its verified owner has been told by e-mail. Compare the names, pictures and documents before verifying this one.'
                : 'Neither is verified yet: compare them before verifying either.'}
            </p>
            <ul className="side-by-side">
              {claim.conflicts.map((other) => (
                <ConflictCard key={other.id} claim={other} tenants={tenants} />
              ))}
            </ul>
          </section>
        )}
      </div>
      {claim.status !== 'pending' ? (
        <p>
          <span className={`badge ${claim.status === 'verified' ? 'ok' : 'warn'}`}>
            {claim.status === 'verified' ? `verified ${claim.verificationTier}` : claim.status}
          </span>
          {claim.rejectionReason === undefined ? null : ` Reason given: ${claim.rejectionReason}`}
        </p>
      ) : (
        <form onSubmit={submit} noValidate aria-label={`Decide the claim of ${claim.name}`}>
          <SelectField
            label="Decision"
            name="decision"
            value={decision}
            onChange={(event) => setDecision(event.target.value)}
          >
            <option value="SILVER">Verify (SILVER)</option>
            <option value="GOLD">Verify (GOLD)</option>
            <option value="reject">Reject</option>
          </SelectField>
          {decision === 'reject' ? (
            <Field
              label="Reason (the claimant reads it)"
              name="reason"
              required
              error={fieldError(error, 'reason')}
            />
          ) : null}
          <FormError error={formError(error, ['reason'])} />
          <button type="submit" disabled={verify.isPending || reject.isPending}>
            Decide
          </button>
        </form>
      )}
    </li>
  );
}

/** Claims waiting for verification, oldest first, each decided in place. */
export function ClaimsToReview() {
  const list = useListFilters<ReviewClaimStatus>('pending');
  const { offset, setOffset, filter: status, search } = list;
  const claims = useClaimsToReview(status, offset, PAGE_SIZE, search);
  const tenants = useTenantNames(
    (claims.data?.data ?? []).flatMap((claim) => [
      claim.ownerPlatformId,
      ...claim.conflicts.map((other) => other.ownerPlatformId),
    ]),
  );
  const [done, setDone] = useState('');
  return (
    <section aria-labelledby="review-claims-title">
      <h1 id="review-claims-title">Claims waiting for verification</h1>
      <StatusFilter
        label="Show claims"
        value={status}
        options={FILTERS}
        onChange={list.chooseFilter}
        searchName="Find a claim"
        search={list.searchBox()}
      />
      <p role="status">{done}</p>
      <QueryState isPending={claims.isPending} error={claims.error} what="claims waiting for verification">
        {() =>
          claims.data === undefined || claims.data.meta.total === 0 ? (
            status !== 'pending' || search !== '' ? (
              <p className="empty">
                No {status} claim{search === '' ? '' : ` whose name contains “${search}”`}.
              </p>
            ) : (
              <p className="empty">
                No claim is waiting for verification. New claims appear here, oldest first, as creators submit
                them.
              </p>
            )
          ) : (
            <>
              <ul className="cards">
                {claims.data.data.map((claim) => (
                  <ClaimCard key={claim.id} claim={claim} tenants={tenants.data} onDecided={setDone} />
                ))}
              </ul>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={claims.data.meta.total}
                onChange={setOffset}
                label="Claims"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}
