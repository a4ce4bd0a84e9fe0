import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/** A delivery's body as the API signs it: either event family (the grace-period family has `type`, the others `event`). */
export type WebhookDelivery =
  | { id: string; type: string; createdAt: string; data: Record<string, unknown> }
  | { id: string; event: string; createdAt: string; data: Record<string, unknown> };

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
export function webhookEventType(delivery: WebhookDelivery): string {
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
