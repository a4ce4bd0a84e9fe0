import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { useClaimsToReview, useRejectClaim, useVerifyClaim, type ReviewClaim } from '../../api/operator';
import { Field, FormError, SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';

/** One waiting claim with its decision: verify at a tier, or reject with a reason. */
function ClaimCard({ claim, onDecided }: { claim: ReviewClaim; onDecided: (message: string) => void }) {
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
  return (
    <li className="card">
      <h3>{claim.name}</h3>
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
          {claim.referenceImages.map((image, index) => (
            <a key={image.id} href={image.url} target="_blank" rel="noreferrer noopener">
              Picture {index + 1}
              {image.isPrimary ? ' (primary)' : ''}{' '}
            </a>
          ))}
        </dd>
        <dt>Claimed by</dt>
        <dd>
          <code>{claim.ownerPlatformId}</code>
        </dd>
        <dt>Submitted</dt>
        <dd>{new Date(claim.createdAt).toLocaleString()}</dd>
      </dl>
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
          <Field label="Reason" name="reason" required error={fieldError(error, 'reason')} />
        ) : null}
        <FormError error={formError(error, ['reason'])} />
        <button type="submit" disabled={verify.isPending || reject.isPending}>
          Decide
        </button>
      </form>
    </li>
  );
}

/** Claims waiting for verification, oldest first, each decided in place. */
export function ClaimsToReview() {
  const [offset, setOffset] = useState(0);
  const claims = useClaimsToReview(offset, PAGE_SIZE);
  const [done, setDone] = useState('');
  return (
    <section aria-labelledby="review-claims-title">
      <h1 id="review-claims-title">Claims waiting for verification</h1>
      <p role="status">{done}</p>
      <QueryState isPending={claims.isPending} error={claims.error} what="claims waiting for verification">
        {() =>
          claims.data === undefined || claims.data.meta.total === 0 ? (
            <p className="empty">
              No claim is waiting for verification. New claims appear here, oldest first, as creators submit
              them.
            </p>
          ) : (
            <>
              <ul className="cards">
                {claims.data.data.map((claim) => (
                  <ClaimCard key={claim.id} claim={claim} onDecided={setDone} />
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
