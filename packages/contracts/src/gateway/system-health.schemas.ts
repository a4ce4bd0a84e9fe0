import { z } from 'zod';

// Health: what each service answers internally and the system view the operator reads.

/** The internal operator endpoint of every domain service behind the gateway's `/admin/health`. */
export const INTERNAL_HEALTH_PATH = '/internal/health';

export const readinessCheckSchema = z
  .object({
    name: z.string().meta({ example: 'db' }),
    result: z.string().meta({
      description:
        'What `/readyz` reports: `ok`, `degraded: <reason>` (a check that never fails readiness, e.g. the broker while the outbox buffers) or the reason it failed',
      example: 'ok',
    }),
    passed: z.boolean(),
  })
  .meta({ id: 'ReadinessCheck' });

/** What a service answers on `/internal/health`. */
export const serviceHealthSchema = z.object({
  ready: z.boolean().meta({ description: 'What `/readyz` would answer: every check that counts passes' }),
  checks: z.array(readinessCheckSchema),
  outboxBacklog: z.number().int().nullable().meta({
    description: 'Events committed but not yet published; null when the database did not answer within 1 s',
  }),
  oldestUnsentSeconds: z.number().int().nullable().meta({
    description: 'How long the oldest unpublished event has waited; null when none waits (or unknown)',
  }),
});

export const systemHealthSchema = z
  .object({
    service: z.string().meta({ example: 'registry' }),
    ready: z.boolean().meta({ description: 'False also for a service that did not answer' }),
    checks: z.array(readinessCheckSchema),
    outboxBacklog: z.number().int().nullable().meta({
      description: 'Null for the gateway (it publishes nothing) and for a service that did not answer',
    }),
    oldestUnsentSeconds: z.number().int().nullable(),
    deadLetters: z.number().int().nullable().meta({
      description: 'Messages in its dead-letter queues, all consumers together; null as for the backlog',
    }),
  })
  .meta({ id: 'ServiceHealth' });
