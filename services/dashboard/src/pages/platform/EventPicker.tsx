import { useId, useState } from 'react';
import catalogue from 'virtual:webhook-events';
import type { NewWebhook } from '../../api/platform';

type Events = NonNullable<NewWebhook['events']>;

// Which events an endpoint receives (issue #32, "Webhooks"): every event (`['*']`, the API's
// default), or the ones ticked, each named with its summary from the event catalogue.

/** The form's choice as the API's `events`: `['*']`, or the ticked event names. */
export function eventsOf(form: FormData): Events {
  if (form.get('eventScope') !== 'some') return ['*'];
  // The names come from the catalogue, built from the same document as the API's types.
  return form.getAll('events').map(String) as Events;
}

export function EventPicker({
  initial = ['*'],
  error,
}: {
  initial?: readonly string[];
  error?: string | undefined;
}) {
  const id = useId();
  const [some, setSome] = useState(!initial.includes('*'));
  const errorId = `${id}-error`;
  return (
    <fieldset aria-describedby={error === undefined ? undefined : errorId}>
      <legend>Events</legend>
      <label>
        <input type="radio" name="eventScope" value="all" checked={!some} onChange={() => setSome(false)} />{' '}
        Every event, those added later included
      </label>
      <label>
        <input type="radio" name="eventScope" value="some" checked={some} onChange={() => setSome(true)} />{' '}
        Only these:
      </label>
      <ul className="event-choices" aria-label="Events to receive">
        {catalogue.map((event) => (
          <li key={event.type}>
            <label>
              <input
                type="checkbox"
                name="events"
                value={event.type}
                defaultChecked={initial.includes(event.type)}
                disabled={!some}
              />{' '}
              <code>{event.type}</code> <span className="hint">{event.summary}</span>
            </label>
          </li>
        ))}
      </ul>
      {error === undefined ? null : (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
