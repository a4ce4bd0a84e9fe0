import { z } from 'zod';
import { idSchema, storable } from '../common/schemas';
import { enforcementSchema, policySchema, type Policy } from '../common/identity';
import { httpUrlSchema } from './claim.schemas';

// A box's policy and its configuration: the create and update bodies, checked per policy.

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
