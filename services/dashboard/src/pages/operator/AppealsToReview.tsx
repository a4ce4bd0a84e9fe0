import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatDateTime } from '../../api/format';
import {
  useAppealsToReview,
  useDecideAppeal,
  useTenantNames,
  type ReviewAppeal,
  type ReviewAppealStatus,
} from '../../api/operator';
import { Field, FormError, SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';
import { Tenant, type Tenants } from './Tenant';

const FILTERS: readonly FilterOption<ReviewAppealStatus>[] = [
  { value: 'pending', label: 'Awaiting a decision' },
  { value: 'upheld', label: 'Upheld' },
  { value: 'denied', label: 'Denied' },
  { value: 'withdrawn', label: 'Withdrawn' },
];

const REASONS: Record<ReviewAppeal['reason'], string> = {
  parody: 'Parody or satire',
  false_positive: 'The detection is wrong',
  common_name: 'A common name, not the protected person',
  authorized: 'Authorised informally',
  other: 'Other',
};

/** One appeal (or a box owner's contest) with the reviewer's decision. */
function AppealCard({
  appeal,
  tenants,
  onDecided,
}: {
  appeal: ReviewAppeal;
  tenants: Tenants;
  onDecided: (message: string) => void;
}) {
  const decide = useDecideAppeal();
  const who = appeal.violation.identityName;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const outcome = String(form.get('outcome')) as 'upheld' | 'denied';
    decide.mutate(
      { id: appeal.id, outcome, notes: String(form.get('notes') ?? '') },
      { onSuccess: () => onDecided(`Appeal about ${who}: ${outcome}.`) },
    );
  };
  const contest = appeal.kind === 'contest';
  return (
    <li className="card">
      <h3>
        {who}
        {appeal.violation.avatar.name === null ? null : <> · avatar “{appeal.violation.avatar.name}”</>}
      </h3>
      <dl className="facts">
        <dt>Kind</dt>
        <dd>
          {contest ? "The box owner contests the violation's resolution" : 'The hosting platform appeals'}
        </dd>
        <dt>Reason</dt>
        <dd>{REASONS[appeal.reason]}</dd>
        <dt>Explanation</dt>
        <dd>{appeal.explanation}</dd>
        {appeal.evidence.length === 0 ? null : (
          <>
            <dt>Evidence</dt>
            <dd>
              {appeal.evidence.map((url, index) => (
                <a key={url} href={url} target="_blank" rel="noreferrer noopener">
                  Evidence {index + 1}{' '}
                </a>
              ))}
            </dd>
          </>
        )}
        <dt>Filed by</dt>
        <dd>
          <Tenant id={appeal.platformId} tenants={tenants} /> on {formatDateTime(appeal.submittedAt)}
        </dd>
        <dt>Violation</dt>
        <dd>
          <code>{appeal.violation.id}</code> ({appeal.violation.status})
        </dd>
      </dl>
      {appeal.status !== 'pending' ? (
        <p>
          <span className="badge">{appeal.status}</span>
          {appeal.decidedAt === undefined || appeal.decidedAt === null
            ? null
            : ` on ${formatDateTime(appeal.decidedAt)}`}
          {appeal.notes === undefined || appeal.notes === null || appeal.notes === ''
            ? null
            : `: ${appeal.notes}`}
        </p>
      ) : (
        <form onSubmit={submit} noValidate aria-label={`Decide the appeal about ${who}`}>
          <SelectField label="Outcome" name="outcome" defaultValue="upheld">
            <option value="upheld">
              {contest ? 'Upheld: the violation is pending again' : 'Upheld: dismiss the violation'}
            </option>
            <option value="denied">
              {contest ? 'Denied: the resolution stands' : 'Denied: the grace period resumes'}
            </option>
          </SelectField>
          <Field label="Notes" name="notes" error={fieldError(decide.error, 'notes')} />
          <FormError error={formError(decide.error, ['notes'])} />
          <button type="submit" disabled={decide.isPending}>
            Decide
          </button>
        </form>
      )}
    </li>
  );
}

/** Appeals awaiting a decision, oldest first, each decided in place. */
export function AppealsToReview() {
  const [offset, setOffset] = useState(0);
  const [status, setStatus] = useState<ReviewAppealStatus>('pending');
  const appeals = useAppealsToReview(status, offset, PAGE_SIZE);
  const tenants = useTenantNames((appeals.data?.data ?? []).map((appeal) => appeal.platformId));
  const [done, setDone] = useState('');
  return (
    <section aria-labelledby="review-appeals-title">
      <h1 id="review-appeals-title">Appeals awaiting a decision</h1>
      <StatusFilter
        label="Show appeals"
        value={status}
        options={FILTERS}
        onChange={(chosen) => {
          setStatus(chosen);
          setOffset(0);
        }}
      />
      <p role="status">{done}</p>
      <QueryState isPending={appeals.isPending} error={appeals.error} what="appeals awaiting a decision">
        {() =>
          appeals.data === undefined || appeals.data.meta.total === 0 ? (
            status !== 'pending' ? (
              <p className="empty">No appeal is {status}.</p>
            ) : (
              <p className="empty">
                No appeal is waiting. Platforms appeal violations (and box owners contest resolutions) through
                the API; each appears here, oldest first, with its grace period paused.
              </p>
            )
          ) : (
            <>
              <ul className="cards">
                {appeals.data.data.map((appeal) => (
                  <AppealCard key={appeal.id} appeal={appeal} tenants={tenants.data} onDecided={setDone} />
                ))}
              </ul>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={appeals.data.meta.total}
                onChange={setOffset}
                label="Appeals"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}
