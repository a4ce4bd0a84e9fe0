import { z } from 'zod';

// The public names of the events a webhook endpoint can subscribe to (docs/spec/contracts.md §10).

/** Public event names of the grace-period family: `{id, type, createdAt, data}`. */
export const GRACE_PERIOD_EVENT_TYPES = [
  'grace_period.started',
  'grace_period.reminder',
  'grace_period.ending',
  'grace_period.expired',
  'grace_period.resolved',
  'grace_period.paused',
  'grace_period.resumed',
] as const;

/** Public event names of the boxing, license and payment family: `{id, event, createdAt, data}`. */
export const BOXING_EVENT_TYPES = [
  'boxing.created',
  'boxing.grace_started',
  'license.approved',
  'license.denied',
  'payment.due',
] as const;

/** About the webhook endpoints themselves (grace-period shape). */
export const ENDPOINT_EVENT_TYPES = ['webhook.endpoint_disabled'] as const;

/** Every public event name a webhook endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  ...GRACE_PERIOD_EVENT_TYPES,
  ...BOXING_EVENT_TYPES,
  ...ENDPOINT_EVENT_TYPES,
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
