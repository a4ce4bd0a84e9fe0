import { Link } from 'react-router';
import { useMyClaims, type ClaimStatus } from '../../api/registry';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, useListFilters, type FilterOption } from '../../components/StatusFilter';

const STATUSES: readonly FilterOption<ClaimStatus | ''>[] = [
  { value: '', label: 'Every status' },
  { value: 'pending', label: 'Pending: to verify' },
  { value: 'verified', label: 'Verified' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'suspended', label: 'Suspended' },
];

export function Claims() {
  const list = useListFilters<ClaimStatus | ''>('');
  const { offset, setOffset, filter: status, search } = list;
  const filtered = status !== '' || search !== '';
  const claims = useMyClaims(offset, PAGE_SIZE, { status: status === '' ? undefined : status, q: search });
  return (
    <section aria-labelledby="claims-title">
      <h1 id="claims-title">Your claims</h1>
      <p>
        <Link className="button" to="/claims/new">
          Claim an identity
        </Link>
      </p>
      <StatusFilter
        label="Show"
        value={status}
        options={STATUSES}
        onChange={list.chooseFilter}
        searchName="Find a claim"
        search={list.searchBox()}
      />
      <QueryState isPending={claims.isPending} error={claims.error} what="claims">
        {() =>
          claims.data === undefined || claims.data.meta.total === 0 ? (
            filtered ? (
              <p className="empty">No claim matches: change the name or the status shown.</p>
            ) : (
              <p className="empty">
                No claims yet. Claim an identity: its name, variations and reference pictures; then verify it
                and protect it with a box.
              </p>
            )
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Your claims, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col">Status</th>
                      <th scope="col">Tier</th>
                      <th scope="col">Box</th>
                    </tr>
                  </thead>
                  <tbody>
                    {claims.data.data.map((claim) => (
                      <tr key={claim.id}>
                        <td>
                          <Link to={`/claims/${claim.id}`}>{claim.name}</Link>
                        </td>
                        <td>{claim.entityType}</td>
                        <td>
                          <span className={`badge ${claim.status === 'verified' ? 'ok' : ''}`}>
                            {claim.status}
                          </span>
                        </td>
                        <td>{claim.verificationTier ?? '—'}</td>
                        <td>
                          {claim.boxId === undefined ? (
                            'none'
                          ) : (
                            <Link to={`/boxes/${claim.boxId}`}>protected</Link>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
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
