import { Link } from 'react-router';
import catalogue from 'virtual:webhook-events';

// The event catalogue (issue #32, "Webhooks", Svix's bar): every event an endpoint can receive,
// what it means, and an example body, from the OpenAPI document the API serves (no call: built in).

/** The sentence of an event's description that names its body's shape (its family), backticks dropped. */
function familyOf(description: string): string | undefined {
  return description
    .split('. ')
    .find((sentence) => sentence.includes('family'))
    ?.replace(/`/g, '');
}

export function WebhookEvents() {
  return (
    <section aria-labelledby="events-title">
      <p>
        <Link to="/webhooks">Webhook endpoints</Link>
      </p>
      <h1 id="events-title">Event catalogue</h1>
      <p>
        {catalogue.length} events. Each is delivered at least once, signed per Standard Webhooks (the
        <code> webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers;
        verify with the endpoint's secret, e.g. <code>verifyWebhook</code> of the SDK), and retried with
        backoff until your endpoint answers 2xx. The <a href="/docs">API reference</a> has every field.
      </p>
      <nav aria-label="Events">
        <ul className="event-index">
          {catalogue.map((event) => (
            <li key={event.type}>
              <a href={`#${event.type}`}>
                <code>{event.type}</code>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {catalogue.map((event) => (
        <article
          key={event.type}
          id={event.type}
          aria-labelledby={`${event.type}-title`}
          className="event-entry"
        >
          <h2 id={`${event.type}-title`}>
            <code>{event.type}</code>
          </h2>
          <p>{event.summary}</p>
          {familyOf(event.description) === undefined ? null : (
            <p className="hint">{familyOf(event.description)}</p>
          )}
          <details>
            <summary>Example body</summary>
            <pre tabIndex={0} aria-label={`Example body of ${event.type}`}>
              {JSON.stringify(event.example, null, 2)}
            </pre>
          </details>
        </article>
      ))}
    </section>
  );
}
