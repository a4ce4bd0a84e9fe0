import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatNumber } from '../../api/format';
import { useChangePlan, usePlatforms, type ListedPlatform, type Plan } from '../../api/operator';
import { FormError, SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, useListFilters, type FilterOption } from '../../components/StatusFilter';

const PLANS: Plan[] = ['sandbox', 'basic', 'standard', 'enterprise'];

const KINDS: FilterOption<ListedPlatform['kind'] | ''>[] = [
  { value: '', label: 'Platforms and creators' },
  { value: 'platform', label: 'Platforms' },
  { value: 'creator', label: 'Creators' },
];

/** A platform's plan, changed in place. */
function PlanForm({ platform }: { platform: ListedPlatform }) {
  const change = useChangePlan();
  const [plan, setPlan] = useState<Plan>(platform.plan);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    change.mutate({ id: platform.id, plan });
  };
  return (
    <form onSubmit={submit} noValidate aria-label={`Change the plan of ${platform.name}`} className="inline">
      <SelectField
        label={`Plan of ${platform.name}`}
        name="plan"
        value={plan}
        onChange={(event) => setPlan(event.target.value as Plan)}
        error={fieldError(change.error, 'plan')}
      >
        {PLANS.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </SelectField>
      <FormError error={formError(change.error, ['plan'])} />
      <button type="submit" className="secondary" disabled={change.isPending || plan === platform.plan}>
        Change plan
      </button>
    </form>
  );
}

/** Platforms and creators (each creator account is a tenant of its own), newest first. */
export function Tenants() {
  const list = useListFilters<ListedPlatform['kind'] | ''>('');
  const { offset, setOffset, filter: kind, search } = list;
  const platforms = usePlatforms(kind === '' ? undefined : kind, offset, PAGE_SIZE, search);
  return (
    <section aria-labelledby="tenants-title">
      <h1 id="tenants-title">Platforms and creators</h1>
      <StatusFilter
        label="Show"
        name="kind"
        value={kind}
        options={KINDS}
        onChange={list.chooseFilter}
        searchName="Find a tenant"
        search={list.searchBox()}
      />
      <QueryState isPending={platforms.isPending} error={platforms.error} what="platforms and creators">
        {() =>
          platforms.data === undefined || platforms.data.meta.total === 0 ? (
            search !== '' ? (
              <p className="empty">No tenant's name contains “{search}”.</p>
            ) : (
              <p className="empty">
                None yet: creators and platforms appear here when they sign up (or when you register a
                platform with POST /admin/platforms).
              </p>
            )
          ) : (
            <>
              <div className="table-wrap" tabIndex={0}>
                <table>
                  <caption className="visually-hidden">Platforms and creators, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Id</th>
                      <th scope="col">Limits</th>
                      <th scope="col">Plan</th>
                    </tr>
                  </thead>
                  <tbody>
                    {platforms.data.data.map((platform) => (
                      <tr key={platform.id}>
                        <td>{platform.name}</td>
                        <td>{platform.kind}</td>
                        <td>
                          <code>{platform.id}</code>
                        </td>
                        <td>
                          {formatNumber(platform.limits.perMinute)}/min,{' '}
                          {formatNumber(platform.limits.perDay)}/day
                        </td>
                        <td>
                          <PlanForm key={platform.plan} platform={platform} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={platforms.data.meta.total}
                onChange={setOffset}
                label="Platforms and creators"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}
