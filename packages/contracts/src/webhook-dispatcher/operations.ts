import { z } from 'zod';
import { dataOf, idParamSchema, idSchema, listOf, pageQuerySchema, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { WEBHOOK_EVENT_TYPES, webhookEventTypeSchema } from './event-types';

// The webhook dispatcher's public operations (docs/spec/contracts.md §10). The same schemas validate
// requests in services/webhook-dispatcher and build the OpenAPI document.

const eventsSchema = z
  .array(z.union([webhookEventTypeSchema, z.literal('*')]))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .meta({ description: "Event names to receive; ['*'] (the default) receives all" });

const urlSchema = storable(z.string().max(2048)).meta({
  format: 'uri',
  description: 'https (production); http allowed in sandbox. Must pass the outbound-fetch guard.',
  example: 'https://hooks.avatars.example/svc',
});

const descriptionSchema = storable(z.string().max(500));

export const createWebhookBodySchema = z.object({
  url: urlSchema,
  events: eventsSchema.optional(),
  description: descriptionSchema.optional(),
});

export const updateWebhookBodySchema = z
  .object({
    url: urlSchema.optional(),
    events: eventsSchema.optional(),
    description: descriptionSchema.nullable().optional(),
    status: z
      .enum(['enabled', 'disabled'])
      .optional()
      .meta({ description: 'enabled re-enables a disabled endpoint and resets its failure count' }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give at least one of url, events, description, status',
  });

export const webhookEndpointSchema = z
  .object({
    id: z.string().meta({ example: 'we_7Hc2kQ9mN4pR8sT1' }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

/** Shown once: on create and on rotation. */
export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    secret: z.string().meta({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const rotatedSecretSchema = webhookEndpointWithSecretSchema
  .extend({
    previousSecretExpiresAt: z.string().meta({ description: 'Until then both signatures are sent' }),
  })
  .meta({ id: 'WebhookEndpointRotatedSecret' });

export const deliveryAttemptSchema = z.object({
  number: z.number().int(),
  attemptedAt: z.string(),
  outcome: z.enum(['succeeded', 'failed']),
  responseStatus: z.number().int().nullable(),
  responseBody: z.string().nullable().meta({
    description:
      'The first 1,024 characters of the answer’s body; null when there was no answer or it was empty',
  }),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  nextRetryAt: z.string().nullable(),
});

export const webhookDeliverySchema = z
  .object({
    id: z.string().meta({ example: 'del_4Fq8nW2xZ6bV1cR3' }),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    test: z.boolean(),
    payload: z.unknown().meta({ description: 'The event’s body, as every attempt sent it (signed)' }),
    attemptCount: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    attempts: z.array(deliveryAttemptSchema),
  })
  .meta({ id: 'WebhookDelivery' });

export const listWebhooksQuerySchema = pageQuerySchema;
export const listDeliveriesQuerySchema = pageQuerySchema.extend({
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});
export const deliveryParamsSchema = z.object({
  id: idSchema,
  deliveryId: idSchema,
});
export const testWebhookBodySchema = z.object({
  endpointId: idSchema,
  type: webhookEventTypeSchema.optional().meta({ description: 'Default grace_period.started' }),
});

const tags = ['Webhooks'];
const service = 'webhook-dispatcher' as const;

export const createWebhookOperation = defineOperation({
  id: 'createWebhook',
  method: 'post',
  path: '/v1/svc/webhooks',
  service,
  summary: 'Register a webhook endpoint (the secret is shown once)',
  tags,
  request: { body: createWebhookBodySchema },
  responses: { 201: { description: 'Created', schema: dataOf(webhookEndpointWithSecretSchema) } },
  // The platform's quota of enabled endpoints (MAX_WEBHOOK_ENDPOINTS): {quota: 'webhookEndpoints', limit, used}.
  errors: ['FORBIDDEN'],
});

export const listWebhooksOperation = defineOperation({
  id: 'listWebhooks',
  method: 'get',
  path: '/v1/svc/webhooks',
  service,
  summary: 'List webhook endpoints, newest first',
  tags,
  request: { query: listWebhooksQuerySchema },
  responses: { 200: { description: 'OK', schema: listOf(webhookEndpointSchema) } },
});

export const getWebhookOperation = defineOperation({
  id: 'getWebhook',
  method: 'get',
  path: '/v1/svc/webhooks/:id',
  service,
  summary: 'A webhook endpoint (without its secret)',
  tags,
  request: { params: idParamSchema },
  responses: { 200: { description: 'OK', schema: dataOf(webhookEndpointSchema) } },
});

export const updateWebhookOperation = defineOperation({
  id: 'updateWebhook',
  method: 'patch',
  path: '/v1/svc/webhooks/:id',
  service,
  summary: 'Change url, events, description or status',
  tags,
  request: { params: idParamSchema, body: updateWebhookBodySchema },
  responses: { 200: { description: 'OK', schema: dataOf(webhookEndpointSchema) } },
  // Enabling a disabled endpoint past the quota of enabled endpoints.
  errors: ['FORBIDDEN'],
});

export const deleteWebhookOperation = defineOperation({
  id: 'deleteWebhook',
  method: 'delete',
  path: '/v1/svc/webhooks/:id',
  service,
  summary: 'Delete an endpoint and its deliveries',
  tags,
  request: { params: idParamSchema },
  responses: {
    200: { description: 'Deleted', schema: dataOf(z.object({ id: z.string(), deleted: z.literal(true) })) },
  },
});

export const rotateWebhookSecretOperation = defineOperation({
  id: 'rotateWebhookSecret',
  method: 'post',
  path: '/v1/svc/webhooks/:id/rotate-secret',
  service,
  summary: 'Issue a new secret; the old one signs too for 24 hours',
  tags,
  request: { params: idParamSchema },
  responses: { 200: { description: 'OK', schema: dataOf(rotatedSecretSchema) } },
});

export const listWebhookDeliveriesOperation = defineOperation({
  id: 'listWebhookDeliveries',
  method: 'get',
  path: '/v1/svc/webhooks/:id/deliveries',
  service,
  summary: 'Deliveries to an endpoint with every attempt, newest first',
  tags,
  request: { params: idParamSchema, query: listDeliveriesQuerySchema },
  responses: { 200: { description: 'OK', schema: listOf(webhookDeliverySchema) } },
});

export const retryWebhookDeliveryOperation = defineOperation({
  id: 'retryWebhookDelivery',
  method: 'post',
  path: '/v1/svc/webhooks/:id/deliveries/:deliveryId/retry',
  service,
  summary: 'Send a delivery again now (one attempt)',
  tags,
  request: { params: deliveryParamsSchema },
  responses: {
    202: { description: 'Queued', schema: dataOf(webhookDeliverySchema) },
    409: { description: 'The endpoint is disabled' },
  },
});

/** The most failed deliveries one replay queues; the answer says when more are left. */
export const MAX_REPLAYED_DELIVERIES = 1000;

export const replayWebhookBodySchema = z.object({
  since: z.iso.datetime().meta({
    description: 'Failed deliveries created at or after this instant are sent again',
    example: '2026-11-29T00:00:00Z',
  }),
});

export const replayedDeliveriesSchema = z
  .object({
    endpointId: z.string(),
    since: z.string(),
    queued: z
      .number()
      .int()
      .meta({ description: 'Failed deliveries queued for one attempt each, oldest first' }),
    more: z
      .boolean()
      .meta({ description: `More than ${MAX_REPLAYED_DELIVERIES} matched: replay again to queue the rest` }),
  })
  .meta({ id: 'WebhookReplay' });

export const replayWebhookOperation = defineOperation({
  id: 'replayWebhookDeliveries',
  method: 'post',
  path: '/v1/svc/webhooks/:id/replay',
  service,
  summary: `Send again every failed delivery since a time (one attempt each, at most ${MAX_REPLAYED_DELIVERIES} a call)`,
  description:
    'For an endpoint that was down: each delivery that failed for good (its retries spent, or the endpoint disabled) and was created at or after `since` is queued for one attempt, oldest first, as the single retry operation does. Pending and succeeded deliveries are left as they are.',
  tags,
  request: { params: idParamSchema, body: replayWebhookBodySchema },
  responses: {
    202: { description: 'Queued', schema: dataOf(replayedDeliveriesSchema) },
    409: { description: 'The endpoint is disabled' },
  },
});

export const testWebhookOperation = defineOperation({
  id: 'testWebhook',
  errors: ['NOT_FOUND'],
  method: 'post',
  path: '/v1/svc/webhooks/test',
  service,
  summary: 'Send a signed sample event to an endpoint (10 per hour per key)',
  tags,
  bucket: 'webhook-test',
  request: { body: testWebhookBodySchema },
  responses: {
    202: { description: 'Queued', schema: dataOf(webhookDeliverySchema) },
    409: { description: 'The endpoint is disabled' },
  },
});

/** The webhook dispatcher's public operations, in declaration order (collected by `allOperations`). */
export const webhookOperations = [
  createWebhookOperation,
  listWebhooksOperation,
  getWebhookOperation,
  updateWebhookOperation,
  deleteWebhookOperation,
  rotateWebhookSecretOperation,
  listWebhookDeliveriesOperation,
  retryWebhookDeliveryOperation,
  replayWebhookOperation,
  testWebhookOperation,
];
