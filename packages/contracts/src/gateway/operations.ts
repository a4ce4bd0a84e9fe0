import { z } from 'zod';
import { dataOf, idParamSchema, listOf } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { accountSecurityOperations } from './account-security';
import {
  createPlatformBodySchema,
  changePlanBodySchema,
  listPlatformsQuerySchema,
  platformSchema,
  listedPlatformSchema,
  issueKeyBodySchema,
  issuedKeySchema,
  apiKeySummarySchema,
  rotatedKeySchema,
  revokedKeySchema,
} from './platform.schemas';
import {
  deadLetterQueueSchema,
  deadLetterQuerySchema,
  replayDeadLettersBodySchema,
  replayedQueueSchema,
  deadLetterServiceMeta,
} from './dead-letter.schemas';
import { systemHealthSchema } from './system-health.schemas';

/** What a client reads of the served document: its OpenAPI version, `info.version` (the SDK's), paths. */
const openApiDocumentSchema = z.looseObject({
  openapi: z.string().meta({ example: '3.1.0' }),
  info: z.looseObject({
    title: z.string(),
    version: z.string().meta({ description: 'The API version; @svc/sdk carries the same' }),
  }),
  paths: z.record(z.string(), z.looseObject({})),
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
