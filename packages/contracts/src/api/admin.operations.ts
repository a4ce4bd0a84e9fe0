import { z } from 'zod';
import { dataOf, idParamSchema, listOf, pageQuerySchema, storable } from './common';
import { defineOperation } from './operation';

export const planSchema = z.enum(['sandbox', 'basic', 'standard', 'enterprise']);
export const environmentSchema = z.enum(['sandbox', 'production']);

const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    'expected a domain name such as example.com',
  );

export const createPlatformBodySchema = z.object({
  name: storable(z.string().trim().min(1).max(200)),
  plan: planSchema,
  domain: domainSchema.optional(),
  limits: z
    .object({
      perMinute: z.number().int().min(1).max(1_000_000),
      perDay: z.number().int().min(1).max(1_000_000_000),
    })
    .optional()
    .meta({ description: 'Agreed limits; enterprise plan only' }),
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

export const issueKeyBodySchema = z.object({
  environment: environmentSchema.optional().meta({ description: "Default: the deployment's environment" }),
});

export const issuedKeySchema = z
  .object({
    id: z.string(),
    key: z.string().meta({ description: 'The secret, shown once' }),
    environment: environmentSchema,
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'IssuedKey' });

export const apiKeySummarySchema = z.object({
  id: z.string(),
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
    summary: 'List platforms',
    request: { query: pageQuerySchema },
    responses: { 200: { description: 'Platforms, newest first', schema: listOf(platformSchema) } },
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
  }),
  rotateKey: defineOperation({
    ...common,
    id: 'adminRotateKey',
    method: 'post',
    path: '/admin/keys/:id/rotate',
    summary: 'Rotate a key: the old one keeps working for 24 hours',
    request: { params: idParamSchema },
    responses: { 200: { description: 'Rotated', schema: dataOf(rotatedKeySchema) } },
  }),
  revokeKey: defineOperation({
    ...common,
    id: 'adminRevokeKey',
    method: 'post',
    path: '/admin/keys/:id/revoke',
    summary: 'Revoke a key at once and issue its successor',
    request: { params: idParamSchema },
    responses: { 200: { description: 'Revoked', schema: dataOf(revokedKeySchema) } },
  }),
  openapi: defineOperation({
    service: 'gateway',
    tags: ['Meta'],
    id: 'getOpenApiDocument',
    method: 'get',
    path: '/v1/svc/openapi.json',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
  }),
};
