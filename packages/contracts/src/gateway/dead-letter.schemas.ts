import { z } from 'zod';
import { storable } from '../common/schemas';

// Dead letters: the operator's view of each service's queue, and the replay.

export const deadLetterSchema = z
  .object({
    queue: z.string().meta({ example: 'detection.identity-projection' }),
    eventId: z.string().nullable().meta({ description: 'Null when the message was not an event envelope' }),
    type: z.string().nullable(),
    attempts: z.number().int().meta({ description: 'Failed attempts that counted toward the limit' }),
    reason: z.string().meta({ description: 'The last failure, as logged' }),
    deadLetteredAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'DeadLetter' });

export const deadLetterQueueSchema = z
  .object({
    service: z.string().meta({ example: 'detection' }),
    queue: z.string(),
    depth: z.number().int().meta({ description: 'Messages waiting in its dead-letter queue' }),
    messages: z.array(deadLetterSchema).meta({ description: 'The oldest, up to `limit`' }),
  })
  .meta({ id: 'DeadLetterQueue' });

export const deadLetterQuerySchema = z.object({
  service: storable(z.string().min(1).max(100)).optional().meta({ description: 'Only this service' }),
  queue: storable(z.string().min(1).max(200)).optional().meta({ description: 'Only this consumer queue' }),
  limit: z.coerce
    .number()
    .int()
    .min(0)
    .max(100)
    .default(20)
    .meta({ description: 'Messages shown per queue' }),
});

export const replayDeadLettersBodySchema = z.object({
  service: storable(z.string().min(1).max(100)).optional().meta({ description: 'Only this service' }),
  queue: storable(z.string().min(1).max(200)).optional().meta({ description: 'Only this consumer queue' }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(1000)
    .meta({ description: 'Most messages moved back per queue' }),
});

export const replayedQueueSchema = z.object({
  service: z.string(),
  queue: z.string(),
  replayed: z.number().int(),
});

/** What a service answers on its internal dead-letter endpoints (the gateway adds `service`). */
export const serviceDeadLetterQueueSchema = deadLetterQueueSchema.omit({ service: true });
export const serviceReplayedQueueSchema = replayedQueueSchema.omit({ service: true });

/** The internal endpoints of every consuming service that the gateway's operator API fans out to. */
export const INTERNAL_DEAD_LETTERS_PATH = '/internal/dead-letters';
export const INTERNAL_DEAD_LETTERS_REPLAY_PATH = '/internal/dead-letters/replay';

export const deadLetterServiceMeta = z.object({
  unreachable: z
    .array(z.object({ service: z.string(), error: z.string() }))
    .meta({ description: 'Services that did not answer; their queues are missing from data' }),
});
