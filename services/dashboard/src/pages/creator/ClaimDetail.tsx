import { Link, useParams } from 'react-router';
import { formError } from '../../api/form-errors';
import { useClaim, useVerifyInSandbox } from '../../api/registry';
import { useSession } from '../../api/session';
import { FormError } from '../../components/Field';
import { QueryState } from '../../components/Status';
import { BoxForm } from './BoxForm';
import { ReferencePictures } from './ReferencePictures';

export function ClaimDetail() {
  const { id = '' } = useParams();
  const claim = useClaim(id);
  const { data: session } = useSession();
  const verify = useVerifyInSandbox(id);
  return (
    <QueryState isPending={claim.isPending} error={claim.error} what="claim">
      {() => {
        const c = claim.data;
        if (c === undefined) return null;
        return (
          <section aria-labelledby="claim-title">
            <h1 id="claim-title">{c.name}</h1>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <span className={`badge ${c.status === 'verified' ? 'ok' : ''}`}>{c.status}</span>
              </dd>
              <dt>Tier</dt>
              <dd>{c.verificationTier ?? 'not verified yet'}</dd>
              <dt>Type</dt>
              <dd>{c.entityType}</dd>
              <dt>Variations</dt>
              <dd>{c.variations.length === 0 ? 'none' : c.variations.join(', ')}</dd>
              <dt>Reference pictures</dt>
              <dd>{c.referenceImages.length}</dd>
            </dl>
            {c.status === 'rejected' ? (
              <div className="empty" role="note" aria-labelledby="rejection-title">
                <h2 id="rejection-title">The operator rejected this claim</h2>
                <p>
                  Reason: <strong>{c.rejectionReason ?? 'none given'}</strong>
                </p>
                <p>
                  Nothing is protected under this claim. You may delete it and claim again with what the
                  reason asks for.
                </p>
              </div>
            ) : null}
            {c.status === 'pending' ? (
              <div className="empty">
                <h2>Verify this identity</h2>
                {session?.environment === 'sandbox' ? (
                  <>
                    <p>In the sandbox, a simulated identity provider stands in for the verification page.</p>
                    <div className="actions">
                      <button
                        type="button"
                        disabled={verify.isPending}
                        onClick={() => verify.mutate('SILVER')}
                      >
                        Complete verification (sandbox)
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        disabled={verify.isPending}
                        onClick={() => verify.mutate('GOLD')}
                      >
                        Verify as GOLD (sandbox)
                      </button>
                    </div>
                    <FormError error={formError(verify.error, [])} />
                  </>
                ) : (
                  <p>
                    Complete the verification page you were sent to when you claimed; the status changes here
                    once it is done.
                  </p>
                )}
              </div>
            ) : null}
            {c.status === 'verified' && c.boxId === undefined ? (
              <>
                <h2>Protect it with a box</h2>
                <p>A box tells platforms what they may do with this identity.</p>
                <BoxForm claimId={c.id} />
              </>
            ) : null}
            {c.boxId !== undefined ? (
              <p>
                Protected. <Link to={`/boxes/${c.boxId}`}>See its box</Link>
              </p>
            ) : null}
            <ReferencePictures claim={c} />
          </section>
        );
      }}
    </QueryState>
  );
}
