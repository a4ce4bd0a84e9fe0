import { publicEventBodySchemas, PUBLIC_EVENT_SUMMARIES } from './webhook-dispatcher/public-events';
import { BOXING_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from './webhook-dispatcher/event-types';
import { type JsonObject, SchemaComponents } from './openapi-schema-components';

export const TAG_DESCRIPTIONS: Record<string, string> = {
  Webhooks:
    'Signed deliveries of events to your endpoints (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`), and the endpoints that receive them',
};

/**
 * The `webhooks` section: one entry per public event type, a POST of its body (the schema the
 * dispatcher builds to) to the platform's endpoint, which acknowledges with any 2xx.
 */
export function webhookItems(components: SchemaComponents): JsonObject {
  const boxing: readonly string[] = BOXING_EVENT_TYPES;
  const items: JsonObject = {};
  for (const type of WEBHOOK_EVENT_TYPES) {
    const family = boxing.includes(type)
      ? 'Boxing, license and payment family: `{id, event, createdAt, data}`, snake_case data.'
      : 'Grace-period family: `{id, type, createdAt, data}`, camelCase data.';
    items[type] = {
      post: {
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        summary: PUBLIC_EVENT_SUMMARIES[type],
        description: `${PUBLIC_EVENT_SUMMARIES[type]}. ${family} Signed per Standard Webhooks (verify with the endpoint’s \`whsec_…\` secret, e.g. \`verifyWebhook\` of @svc/sdk); delivered at least once, retried with backoff on a non-2xx answer or a 10 s timeout.`,
        tags: ['Webhooks'],
        parameters: [
          {
            name: 'webhook-id',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'The event id (the same on every retry)',
          },
          {
            name: 'webhook-timestamp',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'Unix seconds of this attempt',
          },
          {
            name: 'webhook-signature',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description:
              '`v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`; space-separated during a secret rotation',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: components.convert(publicEventBodySchemas[type], 'output') },
          },
        },
        responses: {
          '200': { description: 'Received (any 2xx acknowledges; anything else is retried)' },
        },
        security: [],
      },
    };
  }
  return items;
}
