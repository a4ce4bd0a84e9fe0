import { useState } from 'react';
import { useParams } from 'react-router';
import { formError } from '../../api/form-errors';
import {
  useDeliveries,
  useRetryDelivery,
  useRotateWebhookSecret,
  useSendTestEvent,
  useWebhook,
  type ShownSecret,
} from '../../api/platform';
import { FormError } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { SecretOnce } from '../../components/SecretOnce';
import { QueryState } from '../../components/Status';

function DeliveryLog({ endpointId }: { endpointId: string }) {
  const [offset, setOffset] = useState(0);
  const deliveries = useDeliveries(endpointId, offset, PAGE_SIZE);
  const retry = useRetryDelivery(endpointId);
  return (
    <QueryState isPending={deliveries.isPending} error={deliveries.error} what="deliveries">
      {() =>
        deliveries.data === undefined || deliveries.data.meta.total === 0 ? (
          <p className="empty">No deliveries yet. Send a test event to see one here.</p>
        ) : (
          <>
            <ol className="deliveries" aria-label="Deliveries, newest first">
              {deliveries.data.data.map((delivery) => (
                <li key={delivery.id} className="card">
                  <p>
                    <strong>{delivery.eventType}</strong>{' '}
                    {delivery.test ? <span className="badge">test</span> : null}{' '}
                    <span
                      className={`badge ${delivery.status === 'succeeded' ? 'ok' : delivery.status === 'failed' ? 'warn' : ''}`}
                    >
                      {delivery.status}
                    </span>{' '}
                    {delivery.status === 'pending' ? <span role="status">delivering…</span> : null}
                  </p>
                  <p>
                    Event <code>{delivery.eventId}</code>, {new Date(delivery.createdAt).toLocaleString()}
                    {delivery.lastResponseStatus === null ? null : (
                      <>, last answer HTTP {delivery.lastResponseStatus}</>
                    )}
                    {delivery.lastError === null ? null : <>, {delivery.lastError}</>}
                  </p>
                  <details>
                    <summary>
                      {delivery.attemptCount} attempt{delivery.attemptCount === 1 ? '' : 's'}
                    </summary>
                    <ul>
                      {delivery.attempts.map((attempt) => (
                        <li key={attempt.number}>
                          #{attempt.number} {new Date(attempt.attemptedAt).toLocaleString()}:{' '}
                          {attempt.outcome}
                          {attempt.responseStatus === null ? '' : `, HTTP ${attempt.responseStatus}`},{' '}
                          {attempt.durationMs} ms
                          {attempt.error === null ? '' : `, ${attempt.error}`}
                        </li>
                      ))}
                    </ul>
                  </details>
                  <button
                    type="button"
                    className="secondary"
                    disabled={retry.isPending}
                    onClick={() => retry.mutate(delivery.id)}
                    aria-label={`Re-send delivery ${delivery.id}`}
                  >
                    Re-send
                  </button>
                </li>
              ))}
            </ol>
            <FormError error={formError(retry.error, [])} />
            <Pager
              offset={offset}
              limit={PAGE_SIZE}
              total={deliveries.data.meta.total}
              onChange={setOffset}
              label="Deliveries"
            />
          </>
        )
      }
    </QueryState>
  );
}

export function WebhookDetail() {
  const { id = '' } = useParams();
  const endpoint = useWebhook(id);
  const test = useSendTestEvent(id);
  const rotate = useRotateWebhookSecret(id);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  return (
    <QueryState isPending={endpoint.isPending} error={endpoint.error} what="webhook endpoint">
      {() =>
        endpoint.data === undefined ? null : (
          <section aria-labelledby="endpoint-title">
            <h1 id="endpoint-title">{endpoint.data.url}</h1>
            <dl className="facts">
              <dt>Status</dt>
              <dd>{endpoint.data.status}</dd>
              <dt>Events</dt>
              <dd>{endpoint.data.events.join(', ')}</dd>
            </dl>
            {shown === null ? null : <SecretOnce shown={shown} onDone={() => setShown(null)} />}
            <div className="actions">
              <button type="button" disabled={test.isPending} onClick={() => test.mutate()}>
                Send a test event
              </button>
              <button
                type="button"
                className="secondary"
                disabled={rotate.isPending}
                onClick={() => rotate.mutate(undefined, { onSuccess: setShown })}
              >
                Rotate the signing secret
              </button>
            </div>
            <FormError error={formError(test.error ?? rotate.error, [])} />
            <h2>Delivery log</h2>
            <DeliveryLog endpointId={id} />
          </section>
        )
      }
    </QueryState>
  );
}
