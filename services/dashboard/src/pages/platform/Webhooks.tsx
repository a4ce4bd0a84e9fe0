import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import { useCreateWebhook, useWebhooks, type ShownSecret } from '../../api/platform';
import { useReadOnly } from '../../api/members';
import { Field, FormError } from '../../components/Field';
import { ReadOnlyNote } from '../../components/ReadOnlyNote';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { SecretOnce } from '../../components/SecretOnce';
import { EventPicker, eventsOf } from './EventPicker';
import { QueryState } from '../../components/Status';

export function Webhooks() {
  const [offset, setOffset] = useState(0);
  const endpoints = useWebhooks(offset, PAGE_SIZE);
  const create = useCreateWebhook();
  const readOnly = useReadOnly();
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get('description') ?? '').trim();
    create.mutate(
      {
        url: String(form.get('url') ?? ''),
        events: eventsOf(form),
        ...(description === '' ? {} : { description }),
      },
      {
        onSuccess: (created) => {
          setShown({ label: `Signing secret of ${created.url}`, secret: created.secret });
          (event.target as HTMLFormElement).reset();
        },
      },
    );
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhook endpoints</h1>
      <p>
        What each event means, with an example: the <Link to="/webhooks/events">event catalogue</Link>.
      </p>
      {shown === null ? null : <SecretOnce shown={shown} onDone={() => setShown(null)} />}
      <h2>Add an endpoint</h2>
      {readOnly ? (
        <ReadOnlyNote />
      ) : (
        <form onSubmit={submit} noValidate aria-label="Add an endpoint">
          <Field
            label="Endpoint URL"
            name="url"
            type="url"
            required
            error={fieldError(create.error, 'url')}
            hint="Deliveries are signed per Standard Webhooks."
          />
          <Field label="Description" name="description" error={fieldError(create.error, 'description')} />
          <EventPicker error={fieldError(create.error, 'events', 'events.0')} />
          <FormError error={formError(create.error, ['url', 'description', 'events', 'events.0'])} />
          <button type="submit" disabled={create.isPending}>
            Add endpoint
          </button>
        </form>
      )}
      <h2>Your endpoints</h2>
      <QueryState isPending={endpoints.isPending} error={endpoints.error} what="webhook endpoints">
        {() =>
          endpoints.data === undefined || endpoints.data.meta.total === 0 ? (
            <p className="empty">
              No endpoints yet. Add one above to receive grace-period, license and payment events.
            </p>
          ) : (
            <>
              <ul className="cards">
                {endpoints.data.data.map((endpoint) => (
                  <li key={endpoint.id} className="card">
                    <Link to={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
                    <p>
                      <span className={`badge ${endpoint.status === 'enabled' ? 'ok' : 'warn'}`}>
                        {endpoint.status}
                      </span>{' '}
                      {endpoint.description ?? ''}
                    </p>
                  </li>
                ))}
              </ul>
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={endpoints.data.meta.total}
                onChange={setOffset}
                label="Endpoints"
              />
            </>
          )
        }
      </QueryState>
    </section>
  );
}
