import { z } from 'zod';
import { pageQuerySchema, storable } from '../common/schemas';
import { policySchema } from '../common/identity';
import {
  avatarEvaluationStatusSchema,
  avatarMatchOutcomeSchema,
  avatarIdSchema,
  httpUrlSchema,
} from './vocabulary.schemas';

// Avatars a platform reports: what it sends, and the avatar it gets back.

const avatarFields = {
  name: storable(z.string().trim().min(1).max(200)),
  description: storable(z.string().max(5000))
    .optional()
    .meta({ description: 'Improves detection (parody, context)' }),
  imageUrl: httpUrlSchema.optional(),
  creatorId: storable(z.string().trim().min(1).max(200)).meta({
    description: "The avatar creator's account on the platform",
  }),
  creatorName: storable(z.string().trim().min(1).max(200)).optional(),
  creatorEmail: z
    .email()
    .max(320)
    .optional()
    .meta({ description: 'Personal data: shown in detail responses only' }),
  userCount: z.number().int().min(0).max(1_000_000_000),
  commercial: z
    .boolean()
    .optional()
    .meta({ description: 'Commercial use (BLOCK_COMMERCIAL); default false' }),
};

export const reportAvatarBodySchema = z.object({ id: avatarIdSchema, ...avatarFields });

export const updateAvatarBodySchema = z
  .object({
    name: avatarFields.name.optional(),
    description: storable(z.string().max(5000)).nullable().optional(),
    imageUrl: httpUrlSchema.nullable().optional(),
    creatorId: avatarFields.creatorId.optional(),
    creatorName: storable(z.string().trim().min(1).max(200)).nullable().optional(),
    creatorEmail: z.email().max(320).nullable().optional(),
    userCount: avatarFields.userCount.optional(),
    commercial: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'at least one field to change',
  });

export const avatarIdParamSchema = z.object({ id: avatarIdSchema });

export const listAvatarsQuerySchema = pageQuerySchema.extend({
  evaluation: avatarEvaluationStatusSchema.optional(),
  creatorId: storable(z.string().min(1).max(200)).optional(),
});
export const avatarMatchSummarySchema = z.object({
  boxId: z.string(),
  identityName: z.string(),
  policy: policySchema,
  confidence: z.number().min(0).max(1),
  outcome: avatarMatchOutcomeSchema,
});

export const avatarSchema = z
  .object({
    id: avatarIdSchema,
    name: z.string(),
    description: z.string().nullable(),
    imageUrl: z.string().nullable(),
    creatorId: z.string(),
    creatorName: z.string().nullable(),
    creatorEmail: z.string().nullable().optional().meta({ description: 'Detail responses only' }),
    userCount: z.number().int(),
    commercial: z.boolean(),
    evaluation: avatarEvaluationStatusSchema,
    match: avatarMatchSummarySchema.nullable().meta({ description: 'The best matching box, once evaluated' }),
    openViolations: z.array(z.string()).meta({ description: 'Ids of its pending or appealed violations' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Avatar' });

export const deletedAvatarSchema = z.object({
  id: avatarIdSchema,
  deleted: z.literal(true),
  deletedAt: z.iso.datetime(),
  resolvedViolations: z.array(z.string()).meta({ description: 'Open violations resolved as removed' }),
});
