import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { formError } from '../../api/form-errors';
import { formatTimestamp } from '../../api/format';
import {
  useDeliveries,
  useRetryDelivery,
  useRotateWebhookSecret,
  useSendTestEvent,
  useWebhook,
  type DeliveryStatus,
  type ShownSecret,
  type WebhookDelivery,
} from '../../api/platform';
import { FormError } from '../../components/Field';
import { PAGE_SIZE, Pager } from '../../components/Pager';
import { SecretOnce } from '../../components/SecretOnce';
import { QueryState } from '../../components/Status';
import { StatusFilter, type FilterOption } from '../../components/StatusFilter';
import { WebhookSettings } from './WebhookSettings';

const STATUSES: FilterOption<DeliveryStatus | ''>[] = [
  { value: '', label: 'Every delivery' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Pending: not delivered yet' },
  { value: 'succeeded', label: 'Succeeded' },
];

/** A re-sent delivery being followed: its attempts before the click, and whether we gave up waiting. */
interface Resent {
  id: string;
  before: number;
  timedOut: boolean;
  settled: boolean;
}

/** How long a re-send is followed before the page stops reading the log every second. */
const RESEND_FOLLOW_MS = 60_000;

type ResendState =
  { kind: 'sending'; attempt: number } | { kind: 'settled'; text: string } | { kind: 'waiting' };

function resendState(delivery: WebhookDelivery, resent: Resent): ResendState {
  const latest = delivery.attempts.reduce<WebhookDelivery['attempts'][number] | undefined>(
    (last, attempt) => (last === undefined || attempt.number > last.number ? attempt : last),
    undefined,
  );
  if (delivery.attemptCount <= resent.before || latest === undefined) {
    return resent.timedOut ? { kind: 'waiting' } : { kind: 'sending', attempt: resent.before + 1 };
  }
  const answer = latest.responseStatus === null ? '' : `HTTP ${latest.responseStatus}`;
  const why = [answer, latest.error ?? ''].filter((part) => part !== '').join(', ');
  return {
    kind: 'settled',
    text:
      latest.outcome === 'succeeded'
        ? `Re-sent: attempt #${latest.number} delivered${why === '' ? '' : ` (${why})`}.`
        : `Re-sent: attempt #${latest.number} failed${why === '' ? '' : ` (${why})`}.`,
  };
}

/** The re-sent delivery's new attempt, announced as it goes from pending to delivered or failed. */
function ResendProgress({ state }: { state: ResendState }) {
  return (
    <p role="status" aria-live="polite" className="resend-progress" data-resend={state.kind}>
      {state.kind === 'sending' ? (
        <>
          Re-sending: attempt #{state.attempt} pending… <progress aria-label="Re-send in progress" />
        </>
      ) : state.kind === 'waiting' ? (
        'Re-send queued: the attempt has not been made yet. The log shows it when it is.'
      ) : (
        state.text
      )}
    </p>
  );
}

function DeliveryLog({ endpointId }: { endpointId: string }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const [resent, setResent] = useState<Resent | null>(null);
  const deliveries = useDeliveries(
    endpointId,
    offset,
    PAGE_SIZE,
    resent !== null && !resent.timedOut && !resent.settled,
    status === '' ? undefined : status,
  );
  const retry = useRetryDelivery(endpointId);
  const resentRow = resent === null ? undefined : deliveries.data?.data.find((d) => d.id === resent.id);
  const settledNow =
    resent !== null && resentRow !== undefined && resendState(resentRow, resent).kind === 'settled';
  useEffect(() => {
    if (resent !== null && !resent.settled && settledNow) setResent({ ...resent, settled: true });
  }, [resent, settledNow]);
  // Stop reading every second after a while: a delivery the worker has not picked up is left to the log's own refresh.
  useEffect(() => {
    if (resent === null || resent.timedOut || resent.settled) return undefined;
    const timer = setTimeout(() => setResent({ ...resent, timedOut: true }), RESEND_FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [resent]);
  return (
    <>
      <StatusFilter
        label="Show deliveries"
        value={status}
        options={STATUSES}
        onChange={(chosen) => {
          setStatus(chosen);
          setOffset(0);
        }}
      />
      <QueryState isPending={deliveries.isPending} error={deliveries.error} what="deliveries">
        {() =>
          deliveries.data === undefined || deliveries.data.meta.total === 0 ? (
            <p className="empty">
              {status === ''
                ? 'No deliveries yet. Send a test event to see one here.'
                : 'No delivery with this status. Choose "Every delivery" to see them all.'}
            </p>
          ) : (
            <>
              <ol className="deliveries" aria-label="Deliveries, newest first">
                {deliveries.data.data.map((delivery) => (
                  <li
                    key={delivery.id}
                    className="card"
                    aria-busy={resent?.id === delivery.id && resendState(delivery, resent).kind === 'sending'}
                  >
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
                      Event <code>{delivery.eventId}</code>, {formatTimestamp(delivery.createdAt)}
                      {delivery.lastResponseStatus === null ? null : (
                        <>, last answer HTTP {delivery.lastResponseStatus}</>
                      )}
                      {delivery.lastError === null ? null : <>, {delivery.lastError}</>}
                      {delivery.nextAttemptAt === null ? null : (
                        <>, next attempt {formatTimestamp(delivery.nextAttemptAt)}</>
                      )}
                    </p>
                    <details>
                      <summary>
                        {delivery.attemptCount} attempt{delivery.attemptCount === 1 ? '' : 's'}
                      </summary>
                      <ul>
                        {delivery.attempts.map((attempt) => (
                          <li key={attempt.number}>
                            #{attempt.number} {formatTimestamp(attempt.attemptedAt)}: {attempt.outcome}
                            {attempt.responseStatus === null ? '' : `, HTTP ${attempt.responseStatus}`},{' '}
                            {attempt.durationMs} ms
                            {attempt.error === null ? '' : `, ${attempt.error}`}
                            {attempt.nextRetryAt === null
                              ? ''
                              : `; next retry ${formatTimestamp(attempt.nextRetryAt)}`}
                            {attempt.responseBody === null ? null : (
                              <pre
                                className="response-body"
                                tabIndex={0}
                                aria-label={`Answer to attempt #${attempt.number} of ${delivery.id}`}
                              >
                                {attempt.responseBody}
                              </pre>
                            )}
                          </li>
                        ))}
                      </ul>
                    </details>
                    <details>
                      <summary>Payload</summary>
                      <pre className="response-body" tabIndex={0} aria-label={`Payload of ${delivery.id}`}>
                        {JSON.stringify(delivery.payload, null, 2)}
                      </pre>
                    </details>
                    <button
                      type="button"
                      className="secondary"
                      disabled={retry.isPending}
                      onClick={() => {
                        setResent({
                          id: delivery.id,
                          before: delivery.attemptCount,
                          timedOut: false,
                          settled: false,
                        });
                        retry.mutate(delivery.id, { onError: () => setResent(null) });
                      }}
                      aria-label={`Re-send delivery ${delivery.id}`}
                    >
                      Re-send
                    </button>
                    {resent?.id === delivery.id ? (
                      <ResendProgress state={resendState(delivery, resent)} />
                    ) : null}
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
    </>
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
              <dd>
                {endpoint.data.events.includes('*') ? 'every event' : endpoint.data.events.join(', ')} (
                <Link to="/webhooks/events">event catalogue</Link>)
              </dd>
              {endpoint.data.description === null ? null : (
                <>
                  <dt>Description</dt>
                  <dd>{endpoint.data.description}</dd>
                </>
              )}
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
            <WebhookSettings key={endpoint.data.id} endpoint={endpoint.data} />
          </section>
        )
      }
    </QueryState>
  );
}
