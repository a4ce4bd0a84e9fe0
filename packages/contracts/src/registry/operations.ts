import { z } from 'zod';
import { logEntryField } from '../common/log-entry';
import { dataOf, idParamSchema, idSchema, listOf, pageQuerySchema, storable } from '../common/schemas';
import { MAX_NAME_LENGTH } from '../common/names';
import {
  enforcementSchema,
  entityTypeSchema,
  faceStatusSchema,
  policySchema,
  verificationTierSchema,
  type Policy,
} from '../common/identity';
import { defineOperation } from '../common/operation';

// The registry's public operations: claims and boxes (docs/spec/service-interface.md, Endpoints). The
// same schemas validate requests in services/registry and build the OpenAPI document.

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/** An absolute http(s) URL. */
export const httpUrlSchema = storable(z.string().max(2048))
  .refine(isHttpUrl, 'expected an http(s) URL')
  .meta({ format: 'uri', example: 'https://cdn.example.com/ref/1.jpg' });

export const claimStatusSchema = z.enum(['pending', 'verified', 'rejected', 'suspended']);

// Names are checked by the registry's name rules (INVALID_NAME), not here: a 201-character
// name is INVALID_NAME, never VALIDATION_ERROR.
const nameInputSchema = z.string().meta({
  // Stated for clients; enforced by readName with INVALID_NAME rather than by zod.
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  description:
    '1 to 200 characters, at least one letter or digit, no control characters (INVALID_NAME otherwise)',
  example: 'Ada Lovelace',
});

export const referenceImageInputSchema = z.object({
  url: httpUrlSchema,
  isPrimary: z.boolean().optional(),
});

const referenceImagesInputSchema = z
  .array(referenceImageInputSchema)
  .min(1, 'at least one reference image is required')
  .max(20)
  .refine((images) => images.filter((image) => image.isPrimary === true).length <= 1, {
    message: 'at most one image may be primary',
  });

export const createClaimBodySchema = z.object({
  name: nameInputSchema,
  variations: z.array(nameInputSchema).max(50).optional(),
  entityType: entityTypeSchema,
  referenceImages: referenceImagesInputSchema,
});

export const updateClaimBodySchema = z
  .object({
    variations: z.array(nameInputSchema).max(50).optional().meta({ description: 'Replaces the variations' }),
    referenceImages: referenceImagesInputSchema
      .optional()
      .meta({ description: 'Replaces the reference images (an unchanged url keeps its id)' }),
  })
  .refine((body) => body.variations !== undefined || body.referenceImages !== undefined, {
    message: 'give variations and/or referenceImages',
  });

export const addVariationBodySchema = z.object({ variation: nameInputSchema });

export const addImageBodySchema = z.object({
  url: httpUrlSchema,
  isPrimary: z.boolean().optional().meta({ description: 'A new primary image demotes the old one' }),
});

/** A search of identities by name (issue #32, "search on every long list"). */
export const nameSearchSchema = storable(z.string().trim().min(1).max(200)).optional().meta({
  description:
    'Only those whose name or a variation contains this (case, spacing, dots, quotes and hyphens aside)',
  example: 'lovelace',
});

export const listClaimsQuerySchema = pageQuerySchema.extend({
  q: nameSearchSchema,
  owner: z.enum(['me']).optional().meta({
    description:
      "`me`: only the caller's own (the dashboard's lists); default: the caller's and every verified one",
  }),
  status: claimStatusSchema.optional(),
  entityType: entityTypeSchema.optional(),
});

export const verifyClaimBodySchema = z.object({
  tier: z.enum(['SILVER', 'GOLD']),
  method: storable(z.string().trim().min(1).max(100)).optional(),
  documents: z
    .array(storable(z.string().trim().min(1).max(200)))
    .max(20)
    .optional(),
});

export const rejectClaimBodySchema = z.object({ reason: storable(z.string().trim().min(1).max(1000)) });

export const testHelperVerifyClaimBodySchema = z.object({
  tier: z.enum(['SILVER', 'GOLD']).optional().meta({ description: 'Default SILVER' }),
});

export const referenceImageSchema = z
  .object({
    id: z.string().meta({ example: 'img_Zs7ma3x2Q4uE0bVwYk1Lp9' }),
    url: z.string(),
    isPrimary: z.boolean(),
    face: z
      .object({ status: faceStatusSchema })
      .meta({ description: 'The face enrolment of the picture (docs/spec/contracts.md §15)' }),
  })
  .meta({ id: 'ReferenceImage' });

export const claimListItemSchema = z
  .object({
    id: z.string().meta({ example: 'claim_8Yq2cKxW3rT9mNbV4hJd1s' }),
    name: z.string(),
    variations: z.array(z.string()),
    entityType: entityTypeSchema,
    status: claimStatusSchema,
    verificationTier: verificationTierSchema,
    createdAt: z.iso.datetime(),
    verifiedAt: z.iso.datetime().optional(),
    hasBox: z.boolean(),
    boxId: z.string().optional(),
  })
  .meta({ id: 'ClaimListItem' });

export const claimSchema = claimListItemSchema
  .extend({
    verification: z
      .object({ method: z.string(), completedAt: z.iso.datetime(), documents: z.array(z.string()) })
      .optional()
      .meta({ description: 'Owner only, once verified' }),
    proofs: z
      .array(
        z.object({
          type: z.string(),
          platform: z.string(),
          handle: z.string(),
          verifiedAt: z.iso.datetime(),
        }),
      )
      .optional()
      .meta({ description: 'Owner only' }),
    rejectionReason: z.string().optional().meta({
      description: "Owner only, once rejected: the operator's reason",
      example: 'The documents name someone else',
    }),
    referenceImages: z.array(referenceImageSchema),
  })
  .meta({ id: 'Claim' });

/** The operator's review queue (GET /admin/claims): every tenant's claims of one status. */
export const reviewClaimsQuerySchema = pageQuerySchema.extend({
  q: nameSearchSchema,
  status: claimStatusSchema
    .default('pending')
    .meta({ description: 'Default `pending`: the claims waiting for verification' }),
});

/** Another account's claim on the same name, shown beside the one under review (issue #32). */
export const conflictingClaimSchema = claimListItemSchema
  .extend({
    ownerPlatformId: z.string().meta({ description: 'The tenant (platform or creator) that claims it' }),
    referenceImages: z.array(referenceImageSchema),
  })
  .meta({ id: 'ConflictingClaim' });

export const reviewClaimSchema = claimSchema
  .extend({
    ownerPlatformId: z.string().meta({ description: 'The tenant (platform or creator) that claims it' }),
    conflicts: z.array(conflictingClaimSchema).meta({
      description:
        "Other accounts' pending and verified claims sharing a name or variation with this one (case, spacing, dots and hyphens aside), oldest first",
    }),
    alreadyProtected: z
      .boolean()
      .meta({ description: 'Another account holds a verified claim on the same name (its owner was told)' }),
  })
  .meta({ id: 'ReviewClaim' });

export const createdClaimSchema = claimSchema
  .extend({
    nextStep: z.object({
      action: z.string().meta({ example: 'verify_identity' }),
      url: z.string().meta({ description: 'The verification page of this claim' }),
    }),
  })
  .meta({ id: 'CreatedClaim' });

export const deletedClaimSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
  deletedAt: z.iso.datetime(),
});

// Policy configuration by policy (docs/spec/service-interface.md, Policy configuration). Strict: an
// unknown key is refused, so a typo never silently drops a setting.
const pricedTierSchema = z.strictObject({
  price: z.number().min(0).optional(),
  autoApprove: z.boolean().optional(),
});

const emptyConfigSchema = z.strictObject({}).meta({ id: 'EmptyConfig' });

export const policyConfigSchemas = {
  MONETIZE: z
    .strictObject({
      royaltyRate: z.number().min(0).max(1).optional(),
      revenueTypes: z.array(z.enum(['subscription', 'per_message', 'tips', 'ads'])).optional(),
      minimumPayout: z.number().min(0).optional(),
      contentGuidelines: httpUrlSchema.optional(),
      nsfw: z.boolean().optional(),
    })
    .meta({ id: 'MonetizeConfig' }),
  LICENSE: z
    .strictObject({
      licenseTypes: z
        .strictObject({
          personal: pricedTierSchema.optional(),
          creator: pricedTierSchema.optional(),
          commercial: pricedTierSchema.optional(),
          /** Offered when listed; the owner prices it at approval (never approved automatically). */
          enterprise: z.strictObject({}).optional(),
        })
        .optional(),
      contentGuidelines: httpUrlSchema.optional(),
      nsfw: z.boolean().optional(),
    })
    .meta({ id: 'LicenseConfig' }),
  TEAM: z
    .strictObject({
      authorizedAccounts: z
        .array(storable(z.string().trim().min(1).max(200)))
        .max(1000)
        .optional(),
      platformWhitelist: z
        .array(storable(z.string().trim().toLowerCase().min(1).max(253)))
        .max(1000)
        .optional(),
    })
    .meta({ id: 'TeamConfig' }),
  BLOCK_COMMERCIAL: z
    .strictObject({
      allowedUses: z.array(z.enum(['personal', 'educational', 'parody'])).optional(),
    })
    .meta({ id: 'BlockCommercialConfig' }),
  BLOCK_ALL: emptyConfigSchema,
  OPEN: emptyConfigSchema,
} as const;

const policyConfigInputSchema = z.record(z.string(), z.unknown()).meta({
  description:
    'Shape depends on the policy: MonetizeConfig, LicenseConfig, TeamConfig, BlockCommercialConfig; BLOCK_ALL and OPEN take {} or nothing. Unknown keys are refused.',
});

/** Adds an issue per bad policyConfig field, checked against the schema of `policy`. */
function checkPolicyConfig(
  policy: Policy | undefined,
  config: Record<string, unknown> | undefined,
  ctx: z.RefinementCtx,
): void {
  if (policy === undefined || config === undefined) return;
  const result = policyConfigSchemas[policy].safeParse(config);
  if (result.success) return;
  for (const issue of result.error.issues) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: ['policyConfig', ...issue.path] });
  }
}

export const createBoxBodySchema = z
  .object({
    claimId: idSchema,
    policy: policySchema,
    enforcement: enforcementSchema.optional().meta({ description: 'Default MODERATE' }),
    policyConfig: policyConfigInputSchema.optional(),
  })
  .superRefine((body, ctx) => checkPolicyConfig(body.policy, body.policyConfig, ctx));

type PolicyConfigSchemas = typeof policyConfigSchemas;

/** One policy's create body, for the document: `policy` names the shape of `policyConfig`. */
function createBoxVariant<P extends Policy>(policy: P, config: PolicyConfigSchemas[P]) {
  return z.object({
    claimId: idSchema,
    policy: z.literal(policy),
    enforcement: enforcementSchema.optional().meta({ description: 'Default MODERATE' }),
    policyConfig: config.optional(),
  });
}

/**
 * createBoxBodySchema as the document and the SDK describe it: a union on `policy`, so that a
 * client's compiler refuses a policyConfig of another policy's shape (issue #32), where the
 * validator checks the same in a refinement. The contracts' tests hold the two to the same answers.
 */
export const createBoxDocumentedBodySchema = z
  .discriminatedUnion('policy', [
    createBoxVariant('MONETIZE', policyConfigSchemas.MONETIZE),
    createBoxVariant('LICENSE', policyConfigSchemas.LICENSE),
    createBoxVariant('TEAM', policyConfigSchemas.TEAM),
    createBoxVariant('BLOCK_COMMERCIAL', policyConfigSchemas.BLOCK_COMMERCIAL),
    createBoxVariant('BLOCK_ALL', policyConfigSchemas.BLOCK_ALL),
    createBoxVariant('OPEN', policyConfigSchemas.OPEN),
  ])
  .meta({ id: 'CreateBoxRequest' });

/** One policy's update body, for the document: a new policy and the configuration of its shape. */
function updateBoxVariant<P extends Policy>(policy: P, config: PolicyConfigSchemas[P]) {
  return z.object({
    policy: z.literal(policy),
    enforcement: enforcementSchema.optional(),
    policyConfig: config.optional().meta({ description: 'Replaces the configuration' }),
  });
}

/**
 * updateBoxBodySchema as the document describes it: with `policy`, its configuration's shape;
 * without, a configuration of the box's current policy (checked by the service against it).
 */
export const updateBoxDocumentedBodySchema = z
  .union([
    updateBoxVariant('MONETIZE', policyConfigSchemas.MONETIZE),
    updateBoxVariant('LICENSE', policyConfigSchemas.LICENSE),
    updateBoxVariant('TEAM', policyConfigSchemas.TEAM),
    updateBoxVariant('BLOCK_COMMERCIAL', policyConfigSchemas.BLOCK_COMMERCIAL),
    updateBoxVariant('BLOCK_ALL', policyConfigSchemas.BLOCK_ALL),
    updateBoxVariant('OPEN', policyConfigSchemas.OPEN),
    z
      .object({
        policy: z.never().optional(),
        enforcement: enforcementSchema.optional(),
        policyConfig: z
          .union([
            policyConfigSchemas.MONETIZE,
            policyConfigSchemas.LICENSE,
            policyConfigSchemas.TEAM,
            policyConfigSchemas.BLOCK_COMMERCIAL,
            policyConfigSchemas.BLOCK_ALL,
          ])
          .optional()
          .meta({ description: "Replaces the configuration; checked against the box's current policy" }),
      })
      .refine((b) => b.enforcement !== undefined || b.policyConfig !== undefined, {
        message: 'give policy, enforcement and/or policyConfig',
      }),
  ])
  .meta({ id: 'UpdateBoxRequest' });

export const updateBoxBodySchema = z
  .object({
    policy: policySchema.optional(),
    enforcement: enforcementSchema.optional(),
    policyConfig: policyConfigInputSchema
      .optional()
      .meta({ description: 'Replaces the configuration; checked against the (new) policy' }),
  })
  .refine((b) => b.policy !== undefined || b.enforcement !== undefined || b.policyConfig !== undefined, {
    message: 'give policy, enforcement and/or policyConfig',
  })
  .superRefine((body, ctx) => checkPolicyConfig(body.policy, body.policyConfig, ctx));

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

const claims = { service: 'registry' as const, tags: ['Claims'] };
const boxes = { service: 'registry' as const, tags: ['Boxes'] };
const claimIdParams = { params: idParamSchema };

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

export const registryOperations = {
  listClaims: defineOperation({
    ...claims,
    id: 'listClaims',
    method: 'get',
    path: '/v1/svc/claims',
    summary: "Verified claims of every platform and all of the caller's own, newest first",
    request: { query: listClaimsQuerySchema },
    responses: { 200: { description: 'Claims (list form)', schema: listOf(claimListItemSchema) } },
  }),
  getClaim: defineOperation({
    ...claims,
    id: 'getClaim',
    method: 'get',
    path: '/v1/svc/claims/:id',
    summary: 'A claim (detail form; verification and proofs for the owner only)',
    request: claimIdParams,
    responses: { 200: { description: 'The claim', schema: dataOf(claimSchema) } },
  }),
  createClaim: defineOperation({
    ...claims,
    id: 'createClaim',
    errors: ['INVALID_NAME'],
    method: 'post',
    path: '/v1/svc/claims',
    summary: 'Claim an identity (pending, BRONZE, with the next verification step)',
    request: { body: createClaimBodySchema },
    responses: { 201: { description: 'Created', schema: dataOf(createdClaimSchema) } },
  }),
  updateClaim: defineOperation({
    ...claims,
    id: 'updateClaim',
    errors: ['INVALID_NAME', 'FORBIDDEN'],
    method: 'patch',
    path: '/v1/svc/claims/:id',
    summary: "Replace a claim's variations and/or reference images (owner only)",
    request: { ...claimIdParams, body: updateClaimBodySchema },
    responses: { 200: { description: 'The updated claim', schema: dataOf(claimSchema) } },
  }),
  deleteClaim: defineOperation({
    ...claims,
    id: 'deleteClaim',
    errors: ['FORBIDDEN'],
    method: 'delete',
    path: '/v1/svc/claims/:id',
    summary: 'Delete a claim and its box (owner only)',
    request: claimIdParams,
    responses: { 200: { description: 'Deleted', schema: dataOf(deletedClaimSchema) } },
  }),
  addClaimVariation: defineOperation({
    ...claims,
    id: 'addClaimVariation',
    errors: ['INVALID_NAME', 'FORBIDDEN'],
    method: 'post',
    path: '/v1/svc/claims/:id/variations',
    summary: 'Add a name variation (an existing one, ignoring case, changes nothing)',
    request: { ...claimIdParams, body: addVariationBodySchema },
    responses: { 200: { description: 'The updated claim', schema: dataOf(claimSchema) } },
  }),
  addClaimImage: defineOperation({
    ...claims,
    id: 'addClaimImage',
    errors: ['FORBIDDEN'],
    method: 'post',
    path: '/v1/svc/claims/:id/images',
    summary: 'Add a reference image',
    request: { ...claimIdParams, body: addImageBodySchema },
    responses: { 200: { description: 'The updated claim', schema: dataOf(claimSchema) } },
  }),
  listBoxes: defineOperation({
    ...boxes,
    id: 'listBoxes',
    method: 'get',
    path: '/v1/svc/boxes',
    summary: 'Boxes, newest first',
    request: { query: listBoxesQuerySchema },
    responses: { 200: { description: 'Boxes (list form)', schema: listOf(boxListItemSchema) } },
  }),
  getBox: defineOperation({
    ...boxes,
    id: 'getBox',
    method: 'get',
    path: '/v1/svc/boxes/:id',
    summary: 'A box (detail form)',
    request: claimIdParams,
    responses: { 200: { description: 'The box', schema: dataOf(boxSchema) } },
  }),
  createBox: defineOperation({
    ...boxes,
    id: 'createBox',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    method: 'post',
    path: '/v1/svc/boxes',
    summary: "Protect one of the caller's verified claims with a policy (one box per claim)",
    request: { body: createBoxBodySchema, documentedBody: createBoxDocumentedBodySchema },
    responses: { 201: { description: 'Created; the initial scan starts', schema: dataOf(createdBoxSchema) } },
  }),
  updateBox: defineOperation({
    ...boxes,
    id: 'updateBox',
    errors: ['FORBIDDEN'],
    method: 'patch',
    path: '/v1/svc/boxes/:id',
    summary: 'Change the policy, enforcement or configuration (owner only)',
    request: { ...claimIdParams, body: updateBoxBodySchema, documentedBody: updateBoxDocumentedBodySchema },
    responses: { 200: { description: 'The updated box', schema: dataOf(boxSchema) } },
  }),
  deleteBox: defineOperation({
    ...boxes,
    id: 'deleteBox',
    errors: ['FORBIDDEN'],
    method: 'delete',
    path: '/v1/svc/boxes/:id',
    summary: 'Remove a box: grace periods are cancelled, licenses remain active (owner only)',
    request: claimIdParams,
    responses: { 200: { description: 'Deleted', schema: dataOf(deletedBoxSchema) } },
  }),
  getBoxStats: defineOperation({
    ...boxes,
    id: 'getBoxStats',
    method: 'get',
    path: '/v1/svc/boxes/:id/stats',
    summary: 'Statistics of the current period, or of the month `period` names (owner only)',
    request: { ...claimIdParams, query: boxStatsQuerySchema },
    responses: { 200: { description: 'The statistics', schema: dataOf(boxStatisticsSchema) } },
  }),
  listClaimsForReview: defineOperation({
    ...claims,
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminListClaims',
    method: 'get',
    path: '/admin/claims',
    summary: "Every tenant's claims of one status (default pending: waiting for verification), oldest first",
    request: { query: reviewClaimsQuerySchema },
    responses: {
      200: { description: 'Claims (detail form, with their owner)', schema: listOf(reviewClaimSchema) },
    },
  }),
  verifyClaim: defineOperation({
    ...claims,
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminVerifyClaim',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/admin/claims/:id/verify',
    summary: 'Record a completed identity verification (stands in for the provider)',
    request: { ...claimIdParams, body: verifyClaimBodySchema },
    responses: { 200: { description: 'The verified claim', schema: dataOf(claimSchema) } },
  }),
  rejectClaim: defineOperation({
    ...claims,
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminRejectClaim',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/admin/claims/:id/reject',
    summary: 'Reject a pending claim',
    request: { ...claimIdParams, body: rejectClaimBodySchema },
    responses: { 200: { description: 'The rejected claim', schema: dataOf(claimSchema) } },
  }),
  testHelperVerifyClaim: defineOperation({
    ...claims,
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperVerifyClaim',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/v1/svc/test-helpers/claims/:id/verify',
    summary: "Verify one of the caller's own claims at once (sandbox keys only)",
    request: { ...claimIdParams, body: testHelperVerifyClaimBodySchema },
    responses: { 200: { description: 'The verified claim', schema: dataOf(claimSchema) } },
  }),
};
