import { z } from 'zod';
import { instant, licenseTier, period, policy } from '../common/event-values';
import { BOXING_EVENT_TYPES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types';

// The bodies platforms receive at their webhook endpoints (docs/spec/service-interface.md, Events;
// docs/spec/contracts.md §10). The webhook dispatcher builds every body to these types
// (services/webhook-dispatcher/src/domain/public-events.ts), its tests parse what it builds with
// them, and the OpenAPI document's `webhooks` section is generated from them.

const eventId = z.string().meta({ description: '`evt_…`: the same for every delivery of one event' });
const createdAt = instant.meta({ description: 'When the fact happened' });
const test = z
  .literal(true)
  .optional()
  .meta({ description: 'Present (true) on a sample sent by `POST /v1/svc/webhooks/test`' });

/** `data` of every grace-period event (camelCase). */
export const gracePeriodEventDataSchema = z.strictObject({
  gracePeriodId: z.string(),
  violationId: z.string(),
  boxId: z.string(),
  identityId: z.string().meta({ description: 'The claim (`claim_…`) the box protects' }),
  identityName: z.string(),
  policy,
  status: z.enum(['active', 'paused', 'resolved', 'expired', 'cancelled']),
  startedAt: instant,
  expiresAt: instant,
  daysRemaining: z.number().int().min(0),
  avatarIds: z.array(z.string()).meta({ description: 'Your avatar ids the grace period is about' }),
});

const appealData = gracePeriodEventDataSchema.extend({ appealId: z.string() });

/** `data` of each grace-period event type. */
export const gracePeriodEventData = {
  'grace_period.started': gracePeriodEventDataSchema,
  'grace_period.reminder': gracePeriodEventDataSchema.extend({
    reminderDay: z.union([z.literal(7), z.literal(21), z.literal(28)]).meta({
      description: 'The day of the period (sandbox: hours 6, 18 and 22 stand for days 7, 21 and 28)',
    }),
  }),
  'grace_period.ending': gracePeriodEventDataSchema,
  'grace_period.expired': gracePeriodEventDataSchema,
  'grace_period.resolved': gracePeriodEventDataSchema.extend({
    resolution: z.enum(['licensed', 'removed', 'modified', 'parody', 'dismissed', 'box_removed']),
    remainingAvatars: z.number().int().min(0),
  }),
  'grace_period.paused': appealData,
  'grace_period.resumed': appealData,
} as const;

/** `data` of `boxing.created` and `boxing.grace_started` (snake_case). */
export const boxingEventDataSchema = z.strictObject({
  identity_id: z.string(),
  identity_name: z.string(),
  box_id: z.string(),
  violation_id: z.string(),
  grace_period_id: z.string(),
  avatar_ids: z.array(z.string()),
  policy,
  deadline: instant.meta({ description: 'When the grace period ends: license or remove by then' }),
  days_remaining: z.number().int().min(0),
});

/** `data` of each event of the boxing, license and payment family. */
export const boxingFamilyEventData = {
  'boxing.created': boxingEventDataSchema,
  'boxing.grace_started': boxingEventDataSchema,
  'license.approved': z.strictObject({
    license_id: z.string(),
    request_id: z.string(),
    identity_id: z.string(),
    identity_name: z.string(),
    box_id: z.string(),
    tier: licenseTier,
    automatic: z.boolean().meta({ description: 'Approved by the box’s autoApprove, not by its owner' }),
    approved_at: instant,
  }),
  'license.denied': z.strictObject({
    identity_id: z.string(),
    identity_name: z.string(),
    request_id: z.string(),
    box_id: z.string(),
    tier: licenseTier,
    reason: z.string(),
    denied_at: instant,
  }),
  'payment.due': z.strictObject({
    amount: z.number().meta({
      description: 'The period’s whole current amount of this kind, in currency units (0 after a correction)',
    }),
    kind: z.enum(['fee', 'royalty']),
    currency: z.string().length(3),
    recipient: z.string().meta({ description: 'The platform that is paid (the box owner)' }),
    payment_id: z.string(),
    license_id: z.string(),
    box_id: z.string(),
    period,
    due_date: instant,
  }),
} as const;

/** `data` of `webhook.endpoint_disabled` (grace-period shape). */
export const endpointDisabledEventData = {
  'webhook.endpoint_disabled': z.strictObject({
    endpointId: z.string(),
    url: z.string(),
    reason: z.enum(['gone', 'failing']),
    disabledAt: instant,
    lastError: z.string().nullable(),
  }),
} as const;

function gracePeriodShaped<T extends string, D extends z.ZodType>(type: T, data: D, id: string) {
  return z
    .strictObject({ id: eventId, type: z.literal(type), createdAt, data, test })
    .meta({ id, description: `The \`${type}\` event (\`{id, type, createdAt, data}\`)` });
}

function boxingShaped<T extends string, D extends z.ZodType>(type: T, data: D, id: string) {
  return z
    .strictObject({ id: eventId, event: z.literal(type), createdAt, data, test })
    .meta({ id, description: `The \`${type}\` event (\`{id, event, createdAt, data}\`)` });
}

/** `grace_period.reminder` -> `GracePeriodReminderEvent`. */
function componentName(type: string): string {
  return `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
}

const dataOfType: Record<WebhookEventType, z.ZodType> = {
  ...gracePeriodEventData,
  ...boxingFamilyEventData,
  ...endpointDisabledEventData,
};
const boxingTypes: readonly string[] = BOXING_EVENT_TYPES;

/** The whole signed body of each public event type, as delivered. */
export const publicEventBodySchemas: Record<WebhookEventType, z.ZodType> = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type): [WebhookEventType, z.ZodType] => [
    type,
    (boxingTypes.includes(type) ? boxingShaped : gracePeriodShaped)(
      type,
      dataOfType[type],
      componentName(type),
    ),
  ]),
) as Record<WebhookEventType, z.ZodType>;

/** The public event types with a one-line meaning each (the OpenAPI document's webhook summaries). */
export const PUBLIC_EVENT_SUMMARIES: Record<WebhookEventType, string> = {
  'grace_period.started': 'A grace period started: one of your avatars breaks a box’s policy',
  'grace_period.reminder': 'Reminder on day 7, 21 or 28 of a grace period',
  'grace_period.ending': 'Two days of a grace period remain',
  'grace_period.expired': 'A grace period ran out: deactivate its avatars',
  'grace_period.resolved':
    'A grace period ended without enforcement (licensed, removed, modified, dismissed…)',
  'grace_period.paused': 'A grace period is paused by an appeal',
  'grace_period.resumed': 'An appeal was denied: the countdown resumes',
  'boxing.created': 'An identity in use was boxed: day 0 of its grace period',
  'boxing.grace_started': 'The grace period to comply started',
  'license.approved': 'A license request of yours was approved',
  'license.denied': 'A license request of yours was denied: content must be removed',
  'payment.due': 'A fee or royalty payment is due (the licensee pays, the box owner receives)',
  'webhook.endpoint_disabled': 'One of your webhook endpoints was disabled (410 Gone, or failing for days)',
};

/** The public event body of `type`, typed (what the dispatcher builds). */
export type PublicEventData<
  T extends keyof typeof gracePeriodEventData | keyof typeof boxingFamilyEventData,
> = T extends keyof typeof gracePeriodEventData
  ? z.input<(typeof gracePeriodEventData)[T]>
  : T extends keyof typeof boxingFamilyEventData
    ? z.input<(typeof boxingFamilyEventData)[T]>
    : never;
