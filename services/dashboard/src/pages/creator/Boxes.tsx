import { Link } from 'react-router';
import { formatAmount } from '../../api/format';
import { useMyBoxes, type Policy } from '../../api/registry';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, useListFilters, type FilterOption } from '../../components/StatusFilter';

const POLICIES: readonly FilterOption<Policy | ''>[] = [
  { value: '', label: 'Every policy' },
  { value: 'BLOCK_ALL', label: 'BLOCK_ALL: no avatars' },
  { value: 'BLOCK_COMMERCIAL', label: 'BLOCK_COMMERCIAL: no commercial use' },
  { value: 'LICENSE', label: 'LICENSE: by license' },
  { value: 'MONETIZE', label: 'MONETIZE: royalties' },
  { value: 'TEAM', label: 'TEAM: named platforms' },
  { value: 'OPEN', label: 'OPEN: anyone' },
];

/** The creator's boxes at a glance: violations, grace periods, licensed platforms and this month's revenue. */
export function Boxes() {
  const list = useListFilters<Policy | ''>('');
  const { offset, setOffset, filter: policy, search } = list;
  const filtered = policy !== '' || search !== '';
  const boxes = useMyBoxes(offset, PAGE_SIZE, { policy: policy === '' ? undefined : policy, q: search });
  return (
    <section aria-labelledby="boxes-title">
      <h1 id="boxes-title">Your boxes</h1>
      <p>Each box’s page has its statistics, license requests and violations on every platform.</p>
      <StatusFilter
        label="Policy"
        name="policy"
        value={policy}
        options={POLICIES}
        onChange={list.chooseFilter}
        searchName="Find a box"
        search={list.searchBox({ label: 'Find by identity' })}
      />
      <QueryState isPending={boxes.isPending} error={boxes.error} what="boxes">
        {() =>
          boxes.data === undefined || boxes.data.meta.total === 0 ? (
            filtered ? (
              <p className="empty">No box matches: change the identity or the policy shown.</p>
            ) : (
              <div className="empty">
                <p>No box yet. Protect a verified claim with a box: open the claim and choose a policy.</p>
                <p>
                  <Link className="button" to="/claims">
                    Go to your claims
                  </Link>
                </p>
              </div>
            )
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Your boxes, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Identity</th>
                      <th scope="col">Policy</th>
                      <th scope="col">Violations</th>
                      <th scope="col">Active grace periods</th>
                      <th scope="col">Licensed platforms</th>
                      <th scope="col">Licensees' revenue this month</th>
                    </tr>
                  </thead>
                  <tbody>
                    {boxes.data.data.map((box) => (
                      <tr key={box.id}>
                        <td>
                          <Link to={`/boxes/${box.id}`}>{box.identityName}</Link>
                        </td>
                        <td>{box.policy}</td>
                        <td>{box.stats.totalViolations}</td>
                        <td>{box.stats.activeGracePeriods}</td>
                        <td>{box.stats.licensedPlatforms}</td>
                        <td>{formatAmount(box.stats.monthlyRevenue)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={boxes.data.meta.total}
                onChange={setOffset}
                label="Boxes"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}
