import { z } from 'zod';
import { idSchema, pageQuerySchema, storable } from '../common/schemas';
import { keyScopeSchema } from './key-scopes';

// Platforms (tenants) and their API keys, as the operator creates, lists and changes them.

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
