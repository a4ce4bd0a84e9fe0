import { z } from 'zod';
import { logEntryField } from '../common/log-entry';
import { idSchema, pageQuerySchema } from '../common/schemas';
import { enforcementSchema, policySchema } from '../common/identity';
import { nameSearchSchema } from './claim.schemas';
import { policyConfigSchemas } from './box-policy-config.schemas';

// Boxes: their list query, list and detail forms, and statistics.

export const listBoxesQuerySchema = pageQuerySchema.extend({
  q: nameSearchSchema,
  owner: z.enum(['me']).optional().meta({
    description:
      "`me`: only the caller's own (the dashboard's lists); default: the caller's and every verified one",
  }),
  policy: policySchema.optional(),
  claimId: idSchema.optional(),
});

const listStatsSchema = z.object({
  totalViolations: z.number().int(),
  activeGracePeriods: z.number().int(),
  licensedPlatforms: z.number().int(),
  monthlyRevenue: z.number(),
});

export const boxListItemSchema = z
  .object({
    id: z.string().meta({ example: 'box_3kTq9wXz2LmN8bVc5hJr1s' }),
    claimId: z.string(),
    identityName: z.string(),
    policy: policySchema,
    enforcement: enforcementSchema,
    royaltyRate: z.number().meta({ description: 'policyConfig.royaltyRate for MONETIZE, else 0' }),
    status: z.literal('active'),
    createdAt: z.iso.datetime(),
    stats: listStatsSchema,
  })
  .meta({ id: 'BoxListItem' });

const policyConfigOutputSchema = z.union([
  policyConfigSchemas.MONETIZE,
  policyConfigSchemas.LICENSE,
  policyConfigSchemas.TEAM,
  policyConfigSchemas.BLOCK_COMMERCIAL,
  policyConfigSchemas.BLOCK_ALL,
]);

export const boxSchema = z
  .object({
    id: z.string(),
    claimId: z.string(),
    identityName: z.string(),
    policy: policySchema,
    enforcement: enforcementSchema,
    policyConfig: policyConfigOutputSchema,
    status: z.literal('active'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    stats: listStatsSchema.extend({
      resolvedViolations: z.number().int(),
      totalLicenses: z.number().int(),
      lifetimeRevenue: z.number(),
    }),
    logEntry: logEntryField,
  })
  .meta({ id: 'Box' });

export const createdBoxSchema = boxSchema
  .extend({
    initialScan: z.object({ status: z.literal('in_progress'), estimatedCompletion: z.iso.datetime() }),
  })
  .meta({ id: 'CreatedBox' });

export const deletedBoxSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
  deletedAt: z.iso.datetime(),
  activeLicenses: z.number().int(),
  licenseAction: z.literal('remain_active'),
});

export const boxStatisticsSchema = z
  .object({
    boxId: z.string(),
    period: z.string().meta({ example: '2026-11' }),
    violations: z.object({
      detected: z.number().int(),
      resolved: z.number().int(),
      pending: z.number().int(),
      appealed: z.number().int(),
      resolutions: z
        .object({
          licensed: z.number().int(),
          removed: z.number().int(),
          modified: z.number().int(),
          parody: z.number().int(),
        })
        .meta({
          description: 'The resolved ones of the period by resolution (each checked against the facts)',
        }),
      resolvedBy: z
        .object({
          platform: z.number().int(),
          license: z.number().int(),
          avatarChange: z.number().int(),
        })
        .meta({
          description:
            "The resolved ones of the period by who resolved them: the platform's call, its license, a change to the avatar. " +
            'Each one, with its evidence: GET /v1/svc/boxes/{id}/violations',
        }),
    }),
    gracePeriods: z.object({
      active: z.number().int(),
      expired: z.number().int(),
      resolved: z.number().int(),
    }),
    licenses: z.object({
      total: z.number().int(),
      active: z.number().int(),
      pending: z.number().int(),
      expired: z.number().int(),
    }),
    revenue: z.object({
      monthly: z
        .number()
        .meta({ description: 'Revenue the licensees reported plus the license fees billed' }),
      lifetime: z.number(),
      byType: z.object({
        subscriptions: z.number(),
        messages: z.number(),
        tips: z.number(),
        fees: z.number().meta({ description: 'License fees billed for the period (part of `monthly`)' }),
      }),
    }),
    platforms: z.object({
      licensed: z.number().int(),
      topPlatforms: z.array(z.object({ name: z.string(), revenue: z.number(), users: z.number().int() })),
    }),
  })
  .meta({ id: 'BoxStatistics' });

export const boxStatsQuerySchema = z.object({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
    .optional()
    .meta({
      description:
        'A month (`YYYY-MM`, default the current one) for the figures of a period: violations detected and resolved, resolutions, revenue and top platforms. The counts of states (pending, appealed, grace periods, licenses) are always as of now. The dashboard charts months with it.',
      example: '2026-10',
    }),
});
