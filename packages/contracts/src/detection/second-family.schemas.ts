import { z } from 'zod';
import { storable } from '../common/schemas';
import {
  detectionClassificationSchema,
  detectionLayerSchema,
  enforcementSchema,
  likenessBandSchema,
  matchLayerSchema,
  policySchema,
} from '../common/identity';
import {
  MAX_BATCH_IDENTITIES,
  checkedNameSchema,
  imageUrlInputSchema,
  actionSchema,
  itemErrorSchema,
} from './identity-check.schemas';

// The second family (docs/spec/contracts.md §12): snake_case.

export const secondFamilyStatusSchema = z.enum(['UNCLAIMED', 'CLAIMED', 'BOXED']).meta({
  description:
    'UNCLAIMED: not registered, creation may proceed. CLAIMED: claimed but not boxed; check the licensing ' +
    'terms. BOXED: restrictions apply; block creation or obtain a license.',
});

export const secondFamilyCheckBodySchema = z.object({
  name: checkedNameSchema,
  image_url: imageUrlInputSchema.optional(),
  use_type: z.enum(['avatar', 'voice', 'video']).default('avatar'),
});

const restrictionsSchema = z.object({
  policy: policySchema.nullable(),
  action: actionSchema,
  enforcement: enforcementSchema.optional(),
  royalty_rate: z.number().optional(),
  allowed_uses: z.array(z.string()).optional(),
  content_guidelines: z.string().optional(),
});

export const secondFamilyCheckResultSchema = z
  .object({
    status: secondFamilyStatusSchema,
    identity_id: z.string().nullable().meta({ description: 'The claim id of the matched identity' }),
    name: z.string().optional(),
    restrictions: restrictionsSchema,
    confidence: z.number().min(0).max(1),
    match_layer: matchLayerSchema.nullable().meta({ description: 'What matched; null when nothing did' }),
    likeness: z
      .object({ score: z.number().min(0).max(1), band: likenessBandSchema })
      .optional()
      .meta({ description: 'When a picture was checked (docs/spec/contracts.md §15)' }),
    detection: z.object({ layer: detectionLayerSchema, classification: detectionClassificationSchema }),
  })
  .meta({ id: 'SecondFamilyCheckResult' });

export const secondFamilyBatchBodySchema = z.object({
  identities: z
    .array(
      z.object({
        name: checkedNameSchema,
        image_url: imageUrlInputSchema.optional(),
        use_type: z.enum(['avatar', 'voice', 'video']).default('avatar'),
        id: storable(z.string().max(200)).optional(),
      }),
    )
    .min(1)
    .meta({ description: `At most ${MAX_BATCH_IDENTITIES} (BATCH_TOO_LARGE above)` }),
});

export const secondFamilyBatchResultSchema = z.object({
  results: z.array(
    secondFamilyCheckResultSchema.extend({
      id: z.string().optional(),
      error: itemErrorSchema.optional(),
    }),
  ),
  meta: z.object({
    total: z.number().int(),
    boxed: z.number().int(),
    claimed: z.number().int(),
    unclaimed: z.number().int(),
    processing_time: z.number().int(),
  }),
});

export const identityStatusSchema = z
  .object({
    identity_id: z.string(),
    name: z.string(),
    status: secondFamilyStatusSchema,
    policy: policySchema.optional(),
    enforcement: enforcementSchema.optional(),
    box_id: z.string().optional(),
    boxed_at: z.string().optional(),
    verified_at: z.string(),
  })
  .meta({ id: 'IdentityStatus' });
