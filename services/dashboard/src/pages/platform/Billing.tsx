import { formatDate, formatMoney, formatPeriod } from '../../api/format';
import { monthsOf, payoutsCsv } from '../../api/owed';
import { useRevenueBalance } from '../../api/owner';
import { useLicenses } from '../../api/platform-activity';
import { saveFile } from '../../components/save-file';
import { QueryState } from '../../components/Status';

// What a platform owes (issue #32, "Platforms"): license fees and royalties not yet paid, month by
// month, each line with the license and identity it is for, downloadable as CSV for accounting.
// One read of GET /revenue/balance and one of the licenses (to name them), sent together.

export function Billing() {
  const balance = useRevenueBalance();
  const licenses = useLicenses(0, 100);
  const names = new Map((licenses.data?.data ?? []).map((license) => [license.id, license]));
  const identityOf = (licenseId: string) => names.get(licenseId)?.identityName ?? '';
  return (
    <section aria-labelledby="billing-title">
      <h1 id="billing-title">What you owe</h1>
      <QueryState isPending={balance.isPending} error={balance.error} what="balance">
        {() => {
          const b = balance.data;
          if (b === undefined) return null;
          const months = monthsOf(b.pending_payouts);
          return (
            <>
              <div className="card">
                <h2>Unpaid</h2>
                <p className="figure" aria-label={`Balance: ${formatMoney(b.balance, b.currency)}`}>
                  {formatMoney(b.balance, b.currency)}
                </p>
                <dl className="facts">
                  <dt>License fees</dt>
                  <dd>{formatMoney(b.breakdown.fees.balance, b.currency)}</dd>
                  <dt>Royalties</dt>
                  <dd>{formatMoney(b.breakdown.royalties.balance, b.currency)}</dd>
                </dl>
                <p className="hint">
                  Fees are per calendar month, prorated to the days a license is active; royalties follow each
                  usage report.
                </p>
              </div>
              <h2 id="months-title">By month</h2>
              {months.length === 0 ? (
                <p className="empty">Nothing owed: no fee or royalty is waiting to be paid.</p>
              ) : (
                <>
                  <div className="table-wrap" tabIndex={0}>
                    <table aria-labelledby="months-title">
                      <thead>
                        <tr>
                          <th scope="col">Month</th>
                          <th scope="col">License fees</th>
                          <th scope="col">Royalties</th>
                          <th scope="col">Total</th>
                          <th scope="col">Due</th>
                        </tr>
                      </thead>
                      <tbody>
                        {months.map((month) => (
                          <tr key={month.period}>
                            <th scope="row">{formatPeriod(month.period)}</th>
                            <td>{formatMoney(month.fees, b.currency)}</td>
                            <td>{formatMoney(month.royalties, b.currency)}</td>
                            <td>{formatMoney(month.total, b.currency)}</td>
                            <td>{month.due === '' ? '—' : formatDate(month.due)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <button
                    type="button"
                    className="secondary download"
                    onClick={() =>
                      saveFile('owed.csv', payoutsCsv(b.pending_payouts, b.currency, identityOf), 'text/csv')
                    }
                  >
                    Download as CSV
                  </button>
                  <h2 id="lines-title">Each fee and royalty</h2>
                  <div className="table-wrap" tabIndex={0}>
                    <table aria-labelledby="lines-title">
                      <thead>
                        <tr>
                          <th scope="col">Month</th>
                          <th scope="col">Kind</th>
                          <th scope="col">License</th>
                          <th scope="col">Amount</th>
                          <th scope="col">Due</th>
                        </tr>
                      </thead>
                      <tbody>
                        {b.pending_payouts.map((line) => (
                          <tr key={`${line.period}:${line.kind}:${line.license_id}`}>
                            <td>{formatPeriod(line.period)}</td>
                            <td>{line.kind === 'fee' ? 'License fee' : 'Royalty'}</td>
                            <td>
                              {identityOf(line.license_id)} <code>{line.license_id}</code>
                            </td>
                            <td>{formatMoney(line.amount, b.currency)}</td>
                            <td>{formatDate(line.due_date)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </>
              )}
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
