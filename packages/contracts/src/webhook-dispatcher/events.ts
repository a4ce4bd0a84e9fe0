import { z } from 'zod';
import { defineEvent } from '../common/envelope';
import { instant } from '../common/event-values';

/** The entity each event versions (ADR 0010). */
const byEndpoint = { entity: 'endpointId' };

// The webhook dispatcher's facts. The envelope's platformId is the endpoint's owner.

/** An endpoint was disabled: it answered 410 Gone, or it failed for days. */
export const webhookEndpointDisabled = defineEvent(
  'webhooks.endpoint.disabled',
  1,
  z.object({
    endpointId: z.string(),
    url: z.string(),
    reason: z.enum(['gone', 'failing']),
    disabledAt: instant,
    lastError: z.string().nullable(),
  }),
  byEndpoint,
);

/** Every event the webhook dispatcher publishes (collected by the package's `allEvents`). */
export const webhookDispatcherEvents = [webhookEndpointDisabled] as const;
