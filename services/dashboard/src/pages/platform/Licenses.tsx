import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import {
  formatAmount,
  formatDate,
  formatDateTime,
  formatMoney,
  formatNumber,
  formatPercent,
} from '../../api/format';
import {
  useLicense,
  useLicenses,
  type LicenseListItem,
  type LicenseStatus,
} from '../../api/platform-activity';
import { licenseCredential, logEntryOf } from '../../api/proofs';
import { useSession } from '../../api/session';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { ProofPanel, type ProofTarget } from '../../components/ProofPanel';
import { saveFile } from '../../components/save-file';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';
import { LicenseActions } from './LicenseActions';
import { SandboxClock } from './SandboxClock';

/**
 * An active license's proof (docs/spec/contracts.md §16): its credential saved as `<licenseId>.jwt` for the
 * avatar it covers, or verified here with the SDK. Each is one call, made on the click.
 */
function CredentialActions({
  license,
  onVerify,
  onNotice,
}: {
  license: LicenseListItem;
  onVerify: (target: ProofTarget) => void;
  onNotice: (notice: string) => void;
}) {
  const { data: session } = useSession();
  const download = useMutation({
    mutationFn: () => licenseCredential(license.id),
    onSuccess: (credential) => {
      saveFile(`${license.id}.jwt`, credential, 'application/jwt');
      onNotice(
        `Saved ${license.id}.jwt: the credential of your ${license.tier} license of ${license.identityName}.`,
      );
    },
    onError: (error) => onNotice(`Could not download the credential of ${license.id}: ${error.message}`),
  });
  const what = `the ${license.tier} license of ${license.identityName}`;
  // The newest decision about the license (activated, renewed, revoked…), once logged.
  const entry = logEntryOf(license);
  if (license.status !== 'active') {
    return entry === undefined ? (
      <span className="hint">none (not active)</span>
    ) : (
      <button
        type="button"
        className="link-button"
        aria-label={`Verify log entry of ${what}`}
        onClick={() => onVerify({ kind: 'log-entry', what: `license ${license.id}`, entry })}
      >
        Verify log entry
      </button>
    );
  }
  return (
    <div className="proof-actions">
      <button
        type="button"
        className="link-button"
        aria-label={`Download credential of ${what}`}
        disabled={download.isPending}
        onClick={() => download.mutate()}
      >
        Download credential
      </button>
      <button
        type="button"
        className="link-button"
        aria-label={`Verify credential of ${what}`}
        onClick={() =>
          onVerify({
            kind: 'credential',
            what: `license ${license.id} (${license.identityName})`,
            license: {
              licenseId: license.id,
              identityName: license.identityName,
              tier: license.tier,
              platformId: session?.account.platformId ?? undefined,
              boxId: license.boxId,
            },
          })
        }
      >
        Verify
      </button>
      {entry === undefined ? null : (
        <button
          type="button"
          className="link-button"
          aria-label={`Verify log entry of ${what}`}
          onClick={() => onVerify({ kind: 'log-entry', what: `license ${license.id}`, entry })}
        >
          Verify log entry
        </button>
      )}
    </div>
  );
}

const STATUSES: FilterOption<LicenseStatus | ''>[] = [
  { value: '', label: 'Every status' },
  { value: 'active', label: 'Active' },
  { value: 'pending', label: 'Pending: waiting for the owner' },
  { value: 'expired', label: 'Expired' },
  { value: 'cancelled', label: 'Cancelled' },
  { value: 'revoked', label: 'Revoked' },
];

/** The platform's licenses: tier, fee, royalty rate and validity; each links to its usage. */
export function Licenses() {
  const [status, setStatus] = useState<LicenseStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const [proof, setProof] = useState<ProofTarget | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const licenses = useLicenses(offset, PAGE_SIZE, status === '' ? undefined : status);
  return (
    <section aria-labelledby="licenses-title">
      <h1 id="licenses-title">Licenses and usage</h1>
      <StatusFilter
        label="Show"
        value={status}
        options={STATUSES}
        onChange={(chosen) => {
          setStatus(chosen);
          setOffset(0);
        }}
      />
      <p role="status" className="notice">
        {notice}
      </p>
      <QueryState isPending={licenses.isPending} error={licenses.error} what="licenses">
        {() =>
          status !== '' && licenses.data?.meta.total === 0 ? (
            <p className="empty">No licenses with this status. Choose "Every status" to see them all.</p>
          ) : licenses.data === undefined || licenses.data.meta.total === 0 ? (
            <div className="empty">
              <p>No licenses yet.</p>
              <p>
                When an identity check answers REQUIRE_LICENSE, request one with POST
                /v1/svc/licenses/request; once the owner approves it, it is listed here with its usage.
              </p>
            </div>
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Your licenses, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Identity</th>
                      <th scope="col">Tier</th>
                      <th scope="col">Status</th>
                      <th scope="col">Monthly fee</th>
                      <th scope="col">Royalty</th>
                      <th scope="col">Valid</th>
                      <th scope="col">Credential</th>
                    </tr>
                  </thead>
                  <tbody>
                    {licenses.data.data.map((license) => (
                      <tr key={license.id}>
                        <td>
                          <Link to={`/licenses/${license.id}`}>{license.identityName}</Link>
                        </td>
                        <td>{license.tier}</td>
                        <td>
                          <span className={`badge ${license.status === 'active' ? 'ok' : 'warn'}`}>
                            {license.status}
                          </span>
                        </td>
                        {/* The list item names no currency (the license's page does): the amount alone, not a guessed one. */}
                        <td>{formatAmount(license.monthlyFee)}</td>
                        <td>{formatPercent(license.royaltyRate)}</td>
                        <td>
                          {formatDate(license.validFrom)} – {formatDate(license.expiresAt)}
                        </td>
                        <td>
                          <CredentialActions license={license} onVerify={setProof} onNotice={setNotice} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={licenses.data.meta.total}
                onChange={setOffset}
                label="Licenses"
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
      <SandboxClock />
    </section>
  );
}

/** One license: its terms and the usage reported for the current period. */
export function LicenseDetail() {
  const { id = '' } = useParams();
  const license = useLicense(id);
  return (
    <QueryState isPending={license.isPending} error={license.error} what="license">
      {() =>
        license.data === undefined ? null : (
          <section aria-labelledby="license-title">
            <p>
              <Link to="/licenses">All licenses</Link>
            </p>
            <h1 id="license-title">
              {license.data.identityName}: {license.data.tier} license
            </h1>
            <dl className="facts">
              <dt>Status</dt>
              <dd>{license.data.status}</dd>
              <dt>License</dt>
              <dd>
                <code>{license.data.id}</code>
              </dd>
              <dt>Valid</dt>
              <dd>
                {formatDateTime(license.data.validFrom)} – {formatDateTime(license.data.expiresAt)}
                {license.data.autoRenew ? ' (renews automatically)' : ''}
              </dd>
              <dt>Monthly fee</dt>
              <dd>
                {formatMoney(license.data.monthlyFee, license.data.currency)} (this period:{' '}
                {formatMoney(license.data.fees.currentPeriodFee, license.data.currency)})
              </dd>
              <dt>Territory</dt>
              <dd>{license.data.terms.territory}</dd>
            </dl>
            <h2>Usage reported for {license.data.usage.currentPeriod}</h2>
            <dl className="facts" aria-label="Usage of the current period">
              <dt>Subscribers</dt>
              <dd>{formatNumber(license.data.usage.subscribers)}</dd>
              <dt>Messages</dt>
              <dd>{formatNumber(license.data.usage.messages)}</dd>
              <dt>Revenue</dt>
              <dd>{formatMoney(license.data.usage.revenue, license.data.currency)}</dd>
              <dt>Royalty due</dt>
              <dd>{formatMoney(license.data.usage.royaltyDue, license.data.currency)}</dd>
            </dl>
            {license.data.usage.revenue === 0 && license.data.usage.subscribers === 0 ? (
              <p className="empty">
                Nothing reported for this period yet: report it with POST /v1/svc/licenses/{license.data.id}
                /usage (a second report of the period corrects the first).
              </p>
            ) : null}
            <LicenseActions license={license.data} />
          </section>
        )
      }
    </QueryState>
  );
}
