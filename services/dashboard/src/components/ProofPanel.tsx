import { Fragment, useEffect, useId, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { CheckOutcome, ExpectedLicense, LogEntryRef, ProofReport } from '../api/proofs';

/** What to verify: a license's credential, or the log entry of a decision about a resource. */
export type ProofTarget =
  | { kind: 'credential'; license: ExpectedLicense; what: string }
  | { kind: 'log-entry'; entry: LogEntryRef; what: string };

const BADGE: Record<CheckOutcome, string> = { passed: 'ok', failed: 'warn', 'not checked': '' };

function Report({ report, kind }: { report: ProofReport; kind: ProofTarget['kind'] }) {
  const factsTitle =
    kind === 'credential'
      ? report.verified
        ? 'What the credential says (verified)'
        : 'What the credential claims (not verified)'
      : report.verified
        ? 'The decision (verified)'
        : 'The decision as read (not verified)';
  return (
    <>
      <p role="status" className={`verdict ${report.verified ? 'ok' : 'fail'}`}>
        {report.verified
          ? 'Verified: every check passed.'
          : `Not verified (${report.failure?.reason ?? 'unknown'}): ${report.failure?.explanation ?? ''}.`}
      </p>
      <ol className="checks" aria-label="What was checked">
        {report.checks.map((check) => (
          <li key={check.label} className={`check ${check.outcome.replace(' ', '-')}`}>
            <span className={`badge ${BADGE[check.outcome]}`}>{check.outcome}</span>{' '}
            <strong>{check.label}</strong>
            {check.detail === '' ? null : <span className="hint check-detail">{check.detail}</span>}
          </li>
        ))}
      </ol>
      {report.facts.length === 0 ? null : (
        <>
          <h4>{factsTitle}</h4>
          <dl className="facts">
            {report.facts.map((fact) => (
              <Fragment key={fact.label}>
                <dt>{fact.label}</dt>
                <dd>{fact.value}</dd>
              </Fragment>
            ))}
          </dl>
        </>
      )}
      {report.raw === undefined ? null : (
        <details>
          <summary>{kind === 'credential' ? 'The credential (compact JWS)' : 'The entry’s bytes'}</summary>
          <p className="secret">{report.raw}</p>
        </details>
      )}
    </>
  );
}

/**
 * A verification run in this browser when opened (never on a page load): the SDK's checks of a
 * license credential, or of a logged decision's inclusion in the signed log, each listed with
 * its result and, when one fails, why.
 */
export function ProofPanel({ target, onClose }: { target: ProofTarget; onClose: () => void }) {
  const titleId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const key = target.kind === 'credential' ? target.license.licenseId : String(target.entry.index);
  const proof = useQuery({
    queryKey: ['proof', target.kind, key, target.kind === 'log-entry' ? target.entry.leafHash : ''],
    queryFn: async () => {
      // The SDK's checks load with the first verification, not with the page.
      const checks = await import('../api/proof-checks');
      return target.kind === 'credential'
        ? checks.verifyLicenseCredentialHere(target.license)
        : checks.verifyLogEntryHere(target.entry);
    },
    retry: false,
    gcTime: 0,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  useEffect(() => heading.current?.focus(), [key]);
  const title =
    target.kind === 'credential'
      ? `Verification of the credential of ${target.what}`
      : `Verification of the log entry of ${target.what}`;
  return (
    <section className="card proof" aria-labelledby={titleId}>
      <div className="section-head">
        <h3 id={titleId} ref={heading} tabIndex={-1}>
          {title}
        </h3>
        <div className="actions">
          <button
            type="button"
            className="secondary"
            disabled={proof.isFetching}
            onClick={() => void proof.refetch()}
          >
            Check again
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <p className="hint">
        {target.kind === 'credential'
          ? 'Checked here, in your browser, with the SDK and the keys this service publishes at /.well-known/jwks.json: anyone holding the credential can repeat it.'
          : 'Checked here, in your browser, with the SDK: the entry’s hash, the signed tree head and the inclusion proof, against the keys this service publishes at /.well-known/jwks.json.'}
      </p>
      {proof.isFetching ? (
        <p role="status">Verifying…</p>
      ) : proof.error !== null ? (
        <p role="alert">Could not verify: {proof.error.message}</p>
      ) : proof.data === undefined ? null : (
        <Report report={proof.data} kind={target.kind} />
      )}
    </section>
  );
}
