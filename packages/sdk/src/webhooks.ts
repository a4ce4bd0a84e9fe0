import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema.generated';

export { WebhookVerificationError };

type Schemas = components['schemas'];

/**
 * A delivery's body as the API signs it, one type per event (the `webhooks` section of the
 * document): the grace-period family has `type`, the boxing, license and payment family `event`.
 * Narrow it on that field: `if ('type' in e && e.type === 'grace_period.reminder') e.data.reminderDay`.
 */
export type WebhookDelivery = {
  [K in keyof Schemas]: K extends `${string}Event` ? Schemas[K] : never;
}[keyof Schemas];

/** Every public event name. */
export type WebhookEventType = WebhookDelivery extends infer D
  ? D extends { type: infer T }
    ? T
    : D extends { event: infer E }
      ? E
      : never
  : never;

/**
 * Checks a webhook delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's `whsec_…` secret and returns the parsed event. Throws
 * `WebhookVerificationError` for a wrong signature, a missing header, or a timestamp more than
 * five minutes away (replays). Pass the body exactly as received (the raw bytes or text, not
 * re-serialized JSON). Wraps the `standardwebhooks` library.
 */
export function verifyWebhook(
  secret: string,
  payload: string | Buffer,
  headers: Headers | Record<string, string | string[] | undefined>,
): WebhookDelivery {
  return new Webhook(secret).verify(payload, plainHeaders(headers)) as WebhookDelivery;
}

/** The event's type, whichever family it belongs to. */
export function webhookEventType(delivery: WebhookDelivery): WebhookEventType {
  return 'type' in delivery ? delivery.type : delivery.event;
}

function plainHeaders(
  headers: Headers | Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
