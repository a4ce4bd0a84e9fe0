import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { formError } from '../../api/form-errors';
import { ApiError } from '../../api/http';
import { useBoxStats } from '../../api/owner';
import { logEntryOf } from '../../api/proofs';
import { useBox, useDeleteBox } from '../../api/registry';
import { FormError } from '../../components/Field';
import { ProofPanel } from '../../components/ProofPanel';
import { QueryState } from '../../components/Status';
import { BoxForm } from './BoxForm';
import { BoxScan } from './BoxScan';
import { BoxStats } from './BoxStats';
import { BoxViolations } from './BoxViolations';
import { GrantedLicenses, LicenseRequests } from './LicenseRequests';

export function BoxDetail() {
  const { id = '' } = useParams();
  const box = useBox(id);
  const stats = useBoxStats(id);
  const remove = useDeleteBox(id);
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [verifyingBox, setVerifyingBox] = useState(false);
  // Any account reads a verified claim's box; only its owner reads its statistics (404 otherwise).
  const notOwner = stats.error instanceof ApiError && stats.error.status === 404;
  return (
    <QueryState isPending={box.isPending} error={box.error} what="box">
      {() => {
        const b = box.data;
        if (b === undefined) return null;
        const boxEntry = logEntryOf(b);
        return (
          <section aria-labelledby="box-title">
            <h1 id="box-title">Box of {b.identityName}</h1>
            <dl className="facts">
              <dt>Policy</dt>
              <dd>{b.policy}</dd>
              <dt>Enforcement</dt>
              <dd>{b.enforcement}</dd>
              <dt>Claim</dt>
              <dd>
                <Link to={`/claims/${b.claimId}`}>{b.identityName}</Link>
              </dd>
              {boxEntry === undefined || notOwner ? null : (
                <>
                  <dt>Transparency log</dt>
                  <dd>
                    entry #{boxEntry.index}{' '}
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`Verify log entry of the box of ${b.identityName}`}
                      onClick={() => setVerifyingBox(true)}
                    >
                      Verify log entry
                    </button>
                  </dd>
                </>
              )}
            </dl>
            {verifyingBox && boxEntry !== undefined ? (
              <ProofPanel
                target={{ kind: 'log-entry', what: `the box of ${b.identityName}`, entry: boxEntry }}
                onClose={() => setVerifyingBox(false)}
              />
            ) : null}
            {notOwner ? (
              <p className="empty">
                This box belongs to another account: only its owner sees its statistics, license requests and
                violations, and changes it.
              </p>
            ) : (
              <>
                <nav aria-label="On this page" className="on-this-page">
                  <ul>
                    <li>
                      <a href="#stats-title">Statistics</a>
                    </li>
                    <li>
                      <a href="#requests-title">License requests</a>
                    </li>
                    <li>
                      <a href="#granted-title">Licenses granted</a>
                    </li>
                    <li>
                      <a href="#violations-title">Violations</a>
                    </li>
                    <li>
                      <a href="#policy-title">Policy</a>
                    </li>
                  </ul>
                </nav>
                <BoxScan boxId={b.id} />
                <BoxStats boxId={b.id} />
                <LicenseRequests boxId={b.id} />
                <GrantedLicenses
                  boxId={b.id}
                  active={stats.data?.licenses.active}
                  identityName={b.identityName}
                />
                <BoxViolations boxId={b.id} />
                <h2 id="policy-title">Change the policy</h2>
                <BoxForm key={b.id} box={b} />
                <h2>Remove the box</h2>
                {confirming ? (
                  <div className="actions" role="group" aria-label="Confirm removal">
                    <p>Platforms will no longer be told to protect {b.identityName}.</p>
                    <button
                      type="button"
                      className="danger"
                      onClick={() =>
                        remove.mutate(undefined, { onSuccess: () => void navigate(`/claims/${b.claimId}`) })
                      }
                    >
                      Yes, remove the box
                    </button>
                    <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                      Keep it
                    </button>
                  </div>
                ) : (
                  <button type="button" className="danger" onClick={() => setConfirming(true)}>
                    Remove the box…
                  </button>
                )}
                <FormError error={formError(remove.error, [])} />
              </>
            )}
          </section>
        );
      }}
    </QueryState>
  );
}
