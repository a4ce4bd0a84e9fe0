import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import {
  useDeleteWebhook,
  useReplayFailed,
  useUpdateWebhook,
  type WebhookEndpoint,
} from '../../api/platform';
import { Field, FormError } from '../../components/Field';
import { EventPicker, eventsOf } from './EventPicker';
import { ConfirmDialog } from '../../components/ConfirmDialog';

// An endpoint's settings (issue #32, "Webhooks"): its URL, description and events changed in
// place, disabled and enabled again (enabling resets its failure count), or deleted after a
// confirmation. Each is the public API's PATCH or DELETE.

function ConfirmDelete({ endpoint, onClose }: { endpoint: WebhookEndpoint; onClose: () => void }) {
  const remove = useDeleteWebhook(endpoint.id);
  const navigate = useNavigate();
  return (
    <ConfirmDialog
      titleId="delete-endpoint-title"
      title={`Delete ${endpoint.url}?`}
      confirm="Delete endpoint"
      confirming="Deleting…"
      cancel="Keep it"
      pending={remove.isPending}
      onConfirm={() => remove.mutate(undefined, { onSuccess: () => void navigate('/webhooks') })}
      onCancel={onClose}
    >
      <p>
        No event is sent to it any more, and its delivery log goes with it. This cannot be undone: to stop
        deliveries for a while, disable it instead.
      </p>
      <FormError error={formError(remove.error, [])} />
    </ConfirmDialog>
  );
}

/** `datetime-local`'s value (the visitor's time zone) of an instant. */
function localInputValue(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** Failed deliveries since a time, sent again: what an endpoint missed while it was down. */
function ReplayFailed({ endpoint, onDone }: { endpoint: WebhookEndpoint; onDone: (notice: string) => void }) {
  const replay = useReplayFailed(endpoint.id);
  const [defaultSince] = useState(() =>
    localInputValue(new Date(Date.parse(endpoint.updatedAt) - 86_400_000)),
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get('since') ?? '');
    const since = new Date(value);
    replay.mutate(
      { since: Number.isNaN(since.getTime()) ? value : since.toISOString() },
      {
        onSuccess: (done) =>
          onDone(
            done.queued === 0
              ? 'No failed delivery since then.'
              : `Queued ${done.queued} failed deliver${done.queued === 1 ? 'y' : 'ies'} for one more attempt each${done.more ? '; more are left: replay again' : ''}.`,
          ),
      },
    );
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Replay failed deliveries">
      <h3>Replay failed deliveries</h3>
      <Field
        label="Failed since"
        name="since"
        type="datetime-local"
        defaultValue={defaultSince}
        error={fieldError(replay.error, 'since')}
        hint="Each delivery that failed for good since then is sent once more, oldest first."
      />
      <FormError error={formError(replay.error, ['since'])} />
      <button type="submit" className="secondary" disabled={replay.isPending}>
        {replay.isPending ? 'Queuing…' : 'Replay failed deliveries'}
      </button>
    </form>
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
      <ReplayFailed endpoint={endpoint} onDone={setNotice} />
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
