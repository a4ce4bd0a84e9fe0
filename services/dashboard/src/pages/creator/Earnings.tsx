import { useState } from 'react';
import { formatDate, formatMoney } from '../../api/format';
import { useRevenueBalance } from '../../api/owner';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';

/**
 * What the account is owed as a box owner (license fees and royalties receivable) and what it owes
 * (GET /revenue/balance, the interface's one view of money for an owner).
 */
export function Earnings() {
  const balance = useRevenueBalance();
  const [offset, setOffset] = useState(0);
  return (
    <section aria-labelledby="earnings-title">
      <h1 id="earnings-title">Royalties and fees</h1>
      <QueryState isPending={balance.isPending} error={balance.error} what="balance">
        {() => {
          const b = balance.data;
          if (b === undefined) return null;
          const payouts = b.pending_payouts;
          const page = payouts.slice(offset, offset + PAGE_SIZE);
          return (
            <>
              <div className="cards">
                <div className="card">
                  <h2>Owed to you</h2>
                  <p className="figure" aria-label={`Receivable: ${formatMoney(b.receivable, b.currency)}`}>
                    {formatMoney(b.receivable, b.currency)}
                  </p>
                  <dl className="facts">
                    <dt>License fees</dt>
                    <dd>{formatMoney(b.breakdown.fees.receivable, b.currency)}</dd>
                    <dt>Royalties</dt>
                    <dd>{formatMoney(b.breakdown.royalties.receivable, b.currency)}</dd>
                  </dl>
                </div>
                <div className="card">
                  <h2>You owe</h2>
                  <p className="figure">{formatMoney(b.balance, b.currency)}</p>
                  <dl className="facts">
                    <dt>License fees</dt>
                    <dd>{formatMoney(b.breakdown.fees.balance, b.currency)}</dd>
                    <dt>Royalties</dt>
                    <dd>{formatMoney(b.breakdown.royalties.balance, b.currency)}</dd>
                  </dl>
                </div>
              </div>
              <p className="hint">
                License fees are billed per calendar month, prorated to the days a license was active;
                royalties follow the usage licensed platforms report.
              </p>
              {b.receivable === 0 ? (
                <p className="empty">
                  Nothing is owed to you yet. Approve license requests on your boxes: their fees and the
                  royalties on the revenue licensees report show here.
                </p>
              ) : null}
              <h2>Payments you owe</h2>
              {payouts.length === 0 ? (
                <p>Nothing to pay.</p>
              ) : (
                <>
                  <div className="table-wrap" tabIndex={0}>
                    <table>
                      <caption className="visually-hidden">Payments you owe, by license and period</caption>
                      <thead>
                        <tr>
                          <th scope="col">Kind</th>
                          <th scope="col">License</th>
                          <th scope="col">Period</th>
                          <th scope="col">Amount</th>
                          <th scope="col">Due</th>
                        </tr>
                      </thead>
                      <tbody>
                        {page.map((p) => (
                          <tr key={`${p.kind}-${p.license_id}-${p.period}`}>
                            <td>{p.kind}</td>
                            <td>{p.license_id}</td>
                            <td>{p.period}</td>
                            <td>{formatMoney(p.amount, b.currency)}</td>
                            <td>{formatDate(p.due_date)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                  <Pager
                    offset={offset}
                    limit={PAGE_SIZE}
                    total={payouts.length}
                    onChange={setOffset}
                    label="Payments you owe"
                  />
                </>
              )}
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
