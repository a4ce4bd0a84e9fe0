import { z } from 'zod';
import { dataOf, idParamSchema, idSchema, listOf, pageQuerySchema, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { accountSecurityOperations } from './account-security';
import { keyScopeSchema } from './key-scopes';

/** What a client reads of the served document: its OpenAPI version, `info.version` (the SDK's), paths. */
const openApiDocumentSchema = z.looseObject({
  openapi: z.string().meta({ example: '3.1.0' }),
  info: z.looseObject({
    title: z.string(),
    version: z.string().meta({ description: 'The API version; @svc/sdk carries the same' }),
  }),
  paths: z.record(z.string(), z.looseObject({})),
});

export const planSchema = z.enum(['sandbox', 'basic', 'standard', 'enterprise']);
export const environmentSchema = z.enum(['sandbox', 'production']);

const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    'expected a domain name such as example.com',
  )
  .meta({ example: 'avatarly.io' });

const agreedLimitsSchema = z
  .object({
    perMinute: z.number().int().min(1).max(1_000_000),
    perDay: z.number().int().min(1).max(1_000_000_000),
  })
  .optional()
  .meta({ description: 'Agreed limits; enterprise plan only' });

export const createPlatformBodySchema = z.object({
  name: storable(z.string().trim().min(1).max(200)),
  plan: planSchema,
  domain: domainSchema.optional(),
  limits: agreedLimitsSchema,
});

export const changePlanBodySchema = z.object({ plan: planSchema, limits: agreedLimitsSchema });

/** `creator`: the tenant of a creator's dashboard account (ADR 0024); `platform`: an API customer. */
export const platformKindSchema = z.enum(['platform', 'creator']);

export const listPlatformsQuerySchema = pageQuerySchema.extend({
  kind: platformKindSchema.optional().meta({ description: 'Only platforms, or only creators; default both' }),
  q: storable(z.string().trim().min(1).max(200))
    .optional()
    .meta({ description: 'Only tenants whose name contains this (any case)', example: 'studio' }),
  ids: storable(z.string().max(10_000))
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id !== ''),
      ),
    ])
    .pipe(z.array(idSchema).min(1, 'at least one id').max(100, 'at most 100 ids'))
    .optional()
    .meta({
      description:
        'Only these platforms: ids separated by commas, at most 100 (a page naming the tenants it shows)',
      example: 'plat_4eC39HqLyjWDarjtT1zdp7dc,plat_9fD21KqMzjXEbskuU2aeq8ed',
    }),
});

export const platformSchema = z
  .object({
    id: z.string().meta({ example: 'plat_4eC39HqLyjWDarjtT1zdp7dc' }),
    name: z.string(),
    plan: planSchema,
    domain: z.string().nullable(),
    limits: z.object({ perMinute: z.number().int(), perDay: z.number().int() }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Platform' });

export const listedPlatformSchema = platformSchema
  .extend({ kind: platformKindSchema })
  .meta({ id: 'ListedPlatform' });

/** The name a platform gives a key, so that its list says what each is for. */
export const keyNameSchema = storable(z.string().trim())
  .min(1, 'required')
  .max(60, 'at most 60 characters')
  .meta({ example: 'Production checks' });

export const issueKeyBodySchema = z.object({
  environment: environmentSchema.optional().meta({ description: "Default: the deployment's environment" }),
  name: keyNameSchema.optional(),
  scope: keyScopeSchema.optional().meta({ description: 'Default `full`' }),
});

export const issuedKeySchema = z
  .object({
    id: z.string(),
    key: z.string().meta({ description: 'The secret, shown once' }),
    name: z.string().nullable(),
    scope: keyScopeSchema,
    environment: environmentSchema,
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'IssuedKey' });

export const apiKeySummarySchema = z.object({
  id: z.string(),
  name: z.string().nullable().meta({
    description: 'The name given at issue (a rotation keeps it); null for a key issued without one',
  }),
  last4: z.string().nullable().meta({
    description:
      'The last four characters of the secret, to tell keys apart (null for keys issued before names)',
    example: 'x9Qa',
  }),
  lastUsedAt: z.iso.datetime().nullable().meta({
    description: 'When the key last authenticated a request, to within about 5 seconds; null if never',
  }),
  scope: keyScopeSchema,
  environment: environmentSchema,
  status: z.enum(['active', 'expiring', 'expired', 'revoked']),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  replacedBy: z.string().nullable(),
});

export const rotatedKeySchema = z.object({
  id: z.string(),
  key: z.string(),
  previousKeyId: z.string(),
  previousKeyExpiresAt: z.iso.datetime(),
});

export const revokedKeySchema = z.object({ revokedKeyId: z.string(), id: z.string(), key: z.string() });

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

const deadLetterServiceMeta = z.object({
  unreachable: z
    .array(z.object({ service: z.string(), error: z.string() }))
    .meta({ description: 'Services that did not answer; their queues are missing from data' }),
});

const tags = ['Operator'];
const common = { service: 'gateway' as const, tags, auth: 'operator' as const };

export const adminOperations = {
  createPlatform: defineOperation({
    ...common,
    id: 'adminCreatePlatform',
    method: 'post',
    path: '/admin/platforms',
    summary: 'Register a platform (API customer)',
    request: { body: createPlatformBodySchema },
    responses: { 201: { description: 'Created', schema: dataOf(platformSchema) } },
  }),
  listPlatforms: defineOperation({
    ...common,
    id: 'adminListPlatforms',
    method: 'get',
    path: '/admin/platforms',
    summary: 'List platforms and creators (each creator account has its own tenant)',
    request: { query: listPlatformsQuerySchema },
    responses: {
      200: { description: 'Platforms and creators, newest first', schema: listOf(listedPlatformSchema) },
    },
  }),
  changePlatformPlan: defineOperation({
    ...common,
    id: 'adminChangePlatformPlan',
    method: 'patch',
    path: '/admin/platforms/:id',
    summary: "Change a platform's plan: its limits apply from its next request",
    request: { params: idParamSchema, body: changePlanBodySchema },
    responses: { 200: { description: 'The platform on its new plan', schema: dataOf(platformSchema) } },
  }),
  getPlatform: defineOperation({
    ...common,
    id: 'adminGetPlatform',
    method: 'get',
    path: '/admin/platforms/:id',
    summary: 'A platform with its keys (never the secrets)',
    request: { params: idParamSchema },
    responses: {
      200: {
        description: 'The platform',
        schema: dataOf(platformSchema.extend({ keys: z.array(apiKeySummarySchema) })),
      },
    },
  }),
  issueKey: defineOperation({
    ...common,
    id: 'adminIssueKey',
    method: 'post',
    path: '/admin/platforms/:id/keys',
    summary: 'Issue an API key (shown once)',
    request: { params: idParamSchema, body: issueKeyBodySchema },
    responses: { 201: { description: 'Issued', schema: dataOf(issuedKeySchema) } },
    // The platform's quota of active keys (MAX_ACTIVE_API_KEYS): {quota: 'activeApiKeys', limit, used}.
    errors: ['FORBIDDEN'],
  }),
  rotateKey: defineOperation({
    ...common,
    id: 'adminRotateKey',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/admin/keys/:id/rotate',
    summary: 'Rotate a key: the old one keeps working for 24 hours',
    request: { params: idParamSchema },
    responses: { 200: { description: 'Rotated', schema: dataOf(rotatedKeySchema) } },
  }),
  revokeKey: defineOperation({
    ...common,
    id: 'adminRevokeKey',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/admin/keys/:id/revoke',
    summary: 'Revoke a key at once and issue its successor',
    request: { params: idParamSchema },
    responses: { 200: { description: 'Revoked', schema: dataOf(revokedKeySchema) } },
  }),
  listDeadLetters: defineOperation({
    ...common,
    id: 'adminListDeadLetters',
    method: 'get',
    path: '/admin/dead-letters',
    summary: 'Dead-lettered messages of every consumer queue, with their reasons (left in place)',
    request: { query: deadLetterQuerySchema },
    responses: {
      200: {
        description: 'Every consumer queue of every service, with its dead-letter depth',
        schema: z.object({ data: z.array(deadLetterQueueSchema), meta: deadLetterServiceMeta }),
      },
    },
  }),
  replayDeadLetters: defineOperation({
    ...common,
    id: 'adminReplayDeadLetters',
    method: 'post',
    path: '/admin/dead-letters/replay',
    summary:
      'Move dead letters back to their consumer queue for another round of attempts (applied at most once: consumers deduplicate)',
    request: { body: replayDeadLettersBodySchema },
    responses: {
      200: {
        description: 'How many messages went back to each queue',
        schema: z.object({ data: z.array(replayedQueueSchema), meta: deadLetterServiceMeta }),
      },
    },
  }),
  health: defineOperation({
    ...common,
    id: 'adminGetHealth',
    method: 'get',
    path: '/admin/health',
    summary: "Every service's readiness, outbox backlog and dead letters, the gateway's own readiness first",
    responses: {
      200: {
        description:
          'One row per deployed service; a service that did not answer is not ready and named in meta.unreachable',
        schema: z.object({
          data: z.array(systemHealthSchema),
          meta: z.object({
            unreachable: z.array(z.object({ service: z.string(), error: z.string() })).meta({
              description: 'Services that did not answer: their rows are not ready, with null figures',
            }),
          }),
        }),
      },
    },
  }),
  openapi: defineOperation({
    service: 'gateway',
    tags: ['Meta'],
    id: 'getOpenApiDocument',
    method: 'get',
    path: '/v1/svc/openapi.json',
    auth: 'public',
    summary: 'This document',
    description:
      'The OpenAPI 3.1 document of every operation and webhook event, generated from the schemas that validate requests. Served to anyone, without a key; `@svc/sdk` is generated from it.',
    responses: {
      200: {
        description: 'OpenAPI 3.1 document',
        schema: openApiDocumentSchema,
      },
    },
  }),
  // The dashboard account's own security and the operator's second factor (#30).
  ...accountSecurityOperations,
};
