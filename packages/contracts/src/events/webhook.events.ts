import { z } from 'zod';
import { defineEvent } from './envelope';
import { instant } from './shared.schemas';

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
