import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import { useDeleteWebhook, useUpdateWebhook, type WebhookEndpoint } from '../../api/platform';
import { Field, FormError } from '../../components/Field';
import { EventPicker, eventsOf } from './EventPicker';

// An endpoint's settings (issue #32, "Webhooks"): its URL, description and events changed in
// place, disabled and enabled again (enabling resets its failure count), or deleted after a
// confirmation. Each is the public API's PATCH or DELETE.

function ConfirmDelete({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const remove = useDeleteWebhook(endpoint.id);
  const navigate = useNavigate();
  // A modal dialog: focus moves into it, the page behind is inert, Escape closes it.
  const open = (element: HTMLDialogElement | null) => {
    if (element !== null && !element.open) element.showModal();
  };
  return (
    <dialog ref={open} aria-labelledby="delete-endpoint-title" onCancel={onClose}>
      <h2 id="delete-endpoint-title">Delete {endpoint.url}?</h2>
      <p>
        No event is sent to it any more, and its delivery log goes with it. This cannot be undone: to stop
        deliveries for a while, disable it instead.
      </p>
      <FormError error={formError(remove.error, [])} />
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={remove.isPending}
          onClick={() => remove.mutate(undefined, { onSuccess: () => void navigate('/webhooks') })}
        >
          {remove.isPending ? 'Deleting…' : 'Delete endpoint'}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Keep it
        </button>
      </div>
    </dialog>
  );
}

export function WebhookSettings({ endpoint }: { endpoint: WebhookEndpoint }) {
  const update = useUpdateWebhook(endpoint.id);
  const toggle = useUpdateWebhook(endpoint.id);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [deleting, setDeleting] = useState(false);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get('description') ?? '').trim();
    update.mutate(
      {
        url: String(form.get('url') ?? '').trim(),
        description: description === '' ? null : description,
        events: eventsOf(form),
      },
      { onSuccess: () => setNotice('Saved.') },
    );
  };
  const enabled = endpoint.status === 'enabled';
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <p role="status" className="notice">
        {notice}
      </p>
      <form onSubmit={submit} noValidate aria-label="Endpoint settings">
        <Field
          label="Endpoint URL"
          name="url"
          type="url"
          defaultValue={endpoint.url}
          error={fieldError(update.error, 'url')}
        />
        <Field
          label="Description"
          name="description"
          defaultValue={endpoint.description ?? ''}
          error={fieldError(update.error, 'description')}
        />
        <EventPicker initial={endpoint.events} error={fieldError(update.error, 'events', 'events.0')} />
        <FormError error={formError(update.error, ['url', 'description', 'events', 'events.0'])} />
        <button type="submit" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save changes'}
        </button>
      </form>
      <h3>{enabled ? 'Pause or delete' : 'Deliveries are paused'}</h3>
      {endpoint.disabledReason === null ? null : <p>Disabled: {endpoint.disabledReason}</p>}
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={toggle.isPending}
          onClick={() =>
            toggle.mutate(
              { status: enabled ? 'disabled' : 'enabled' },
              {
                onSuccess: (changed) =>
                  setNotice(
                    changed.status === 'enabled'
                      ? 'Enabled.'
                      : 'Disabled: nothing is sent to it until you enable it.',
                  ),
              },
            )
          }
        >
          {enabled ? 'Disable endpoint' : 'Enable endpoint'}
        </button>
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          Delete endpoint…
        </button>
      </div>
      <FormError error={formError(toggle.error, [])} />
      {deleting ? <ConfirmDelete endpoint={endpoint} onClose={() => setDeleting(false)} /> : null}
    </section>
  );
}
