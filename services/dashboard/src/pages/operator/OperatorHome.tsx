import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import {
  useDeadLetters,
  useDecideAppeal,
  usePlatforms,
  useRejectClaim,
  useVerifyClaim,
} from '../../api/operator';
import { Field, FormError, SelectField } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { QueryState } from '../../components/Status';

function Platforms() {
  const [offset, setOffset] = useState(0);
  const platforms = usePlatforms(offset, PAGE_SIZE);
  return (
    <QueryState isPending={platforms.isPending} error={platforms.error} what="platforms">
      {() =>
        platforms.data === undefined || platforms.data.meta.total === 0 ? (
          <p className="empty">No platforms or creators yet: they appear here when they sign up.</p>
        ) : (
          <>
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Platforms and creators, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Id</th>
                    <th scope="col">Plan</th>
                    <th scope="col">Limits</th>
                  </tr>
                </thead>
                <tbody>
                  {platforms.data.data.map((platform) => (
                    <tr key={platform.id}>
                      <td>{platform.name}</td>
                      <td>
                        <code>{platform.id}</code>
                      </td>
                      <td>{platform.plan}</td>
                      <td>
                        {platform.limits.perMinute}/min, {platform.limits.perDay}/day
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
              label="Platforms"
            />
          </>
        )
      }
    </QueryState>
  );
}

function Health() {
  const dead = useDeadLetters();
  return (
    <QueryState isPending={dead.isPending} error={dead.error} what="system health">
      {() =>
        dead.data === undefined ? null : (
          <>
            <ul className="cards">
              {dead.data.data.map((queue) => (
                <li key={`${queue.service}/${queue.queue}`} className="card">
                  <strong>{queue.service}</strong> <code>{queue.queue}</code>{' '}
                  <span className={`badge ${queue.depth === 0 ? 'ok' : 'warn'}`}>
                    {queue.depth} dead letter{queue.depth === 1 ? '' : 's'}
                  </span>
                </li>
              ))}
            </ul>
            {dead.data.meta.unreachable.length === 0 ? (
              <p role="status">Every service answered.</p>
            ) : (
              <p role="alert">Not answering: {dead.data.meta.unreachable.map((u) => u.service).join(', ')}</p>
            )}
          </>
        )
      }
    </QueryState>
  );
}

function ClaimDecision() {
  const verify = useVerifyClaim();
  const reject = useRejectClaim();
  const [done, setDone] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const id = String(form.get('claimId') ?? '').trim();
    const decision = String(form.get('decision'));
    const onSuccess = () =>
      setDone(`Claim ${id}: ${decision === 'reject' ? 'rejected' : `verified (${decision})`}.`);
    setDone(null);
    if (decision === 'reject') reject.mutate({ id, reason: String(form.get('reason') ?? '') }, { onSuccess });
    else verify.mutate({ id, tier: decision as 'SILVER' | 'GOLD' }, { onSuccess });
  };
  const error = verify.error ?? reject.error;
  return (
    <form onSubmit={submit} noValidate aria-label="Decide a claim">
      <Field label="Claim id" name="claimId" required error={fieldError(error, 'path.id')} />
      <SelectField label="Decision" name="decision" defaultValue="SILVER">
        <option value="SILVER">Verify (SILVER)</option>
        <option value="GOLD">Verify (GOLD)</option>
        <option value="reject">Reject</option>
      </SelectField>
      <Field label="Reason (when rejecting)" name="reason" error={fieldError(error, 'reason')} />
      <FormError error={formError(error, ['path.id', 'reason'])} />
      <button type="submit">Decide the claim</button>
      {done === null ? null : <p role="status">{done}</p>}
    </form>
  );
}

function AppealDecision() {
  const decide = useDecideAppeal();
  const [done, setDone] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const id = String(form.get('appealId') ?? '').trim();
    const outcome = String(form.get('outcome')) as 'upheld' | 'denied';
    setDone(null);
    decide.mutate(
      { id, outcome, notes: String(form.get('notes') ?? '') },
      { onSuccess: () => setDone(`Appeal ${id}: ${outcome}.`) },
    );
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Decide an appeal">
      <Field label="Appeal id" name="appealId" required error={fieldError(decide.error, 'path.id')} />
      <SelectField label="Outcome" name="outcome" defaultValue="upheld">
        <option value="upheld">Upheld: dismiss the violation</option>
        <option value="denied">Denied: the grace period resumes</option>
      </SelectField>
      <Field label="Notes" name="notes" error={fieldError(decide.error, 'notes')} />
      <FormError error={formError(decide.error, ['path.id', 'notes'])} />
      <button type="submit">Decide the appeal</button>
      {done === null ? null : <p role="status">{done}</p>}
    </form>
  );
}

/** The operator's page: platforms and creators, decisions on claims and appeals, system health. */
export function OperatorHome() {
  return (
    <section aria-labelledby="operator-title">
      <h1 id="operator-title">Operations</h1>
      <h2>Platforms and creators</h2>
      <Platforms />
      <div className="cards">
        <div>
          <h2>Claims waiting for verification</h2>
          <ClaimDecision />
        </div>
        <div>
          <h2>Appeals</h2>
          <AppealDecision />
        </div>
      </div>
      <h2>System health: dead letters by queue</h2>
      <Health />
    </section>
  );
}
