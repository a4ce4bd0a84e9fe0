import { z } from 'zod';
import { idSchema, pageQuerySchema } from '../common/schemas';
import { policySchema } from '../common/identity';
import {
  gracePeriodStatusSchema,
  resolutionSchema,
  avatarIdSchema,
  gracePeriodNotificationSchema,
  licensePricingSchema,
  resolutionTypeSchema,
} from './vocabulary.schemas';

// Grace periods: their list query and the detail and list forms.

export const listGracePeriodsQuerySchema = pageQuerySchema.extend({
  status: gracePeriodStatusSchema.optional(),
  boxId: idSchema.optional(),
  expiringWithin: z.coerce.number().int().min(0).max(3650).optional().meta({
    description: 'Grace periods that expire within this many days (sandbox days: 1/30 of 24 hours)',
  }),
});

export const gracePeriodSchema = z
  .object({
    id: z.string().meta({ example: 'gp_8Wq2cKxW3rT9mNbV4hJd1s' }),
    boxId: z.string(),
    violationId: z.string(),
    identityName: z.string(),
    policy: policySchema.optional().meta({ description: 'Detail only' }),
    status: gracePeriodStatusSchema,
    startedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    daysRemaining: z.number().int().min(0),
    affectedAvatars: z.union([
      z.number().int().meta({ description: 'Lists: how many' }),
      z
        .array(
          z.object({
            avatarId: avatarIdSchema,
            name: z.string(),
            creatorId: z.string(),
            creatorEmail: z.string().nullable(),
            userCount: z.number().int(),
            status: z.enum(['active', 'removed', 'compliant', 'deactivated']).meta({
              description:
                'active: still reported and not yet compliant. removed: deleted by the platform. compliant: the ' +
                'grace period was resolved. deactivated: the grace period expired.',
            }),
          }),
        )
        .meta({ description: 'Detail: the avatars (personal data)' }),
    ]),
    affectedUsers: z.number().int().optional().meta({ description: 'Lists only' }),
    notifications: z
      .object({
        day0: gracePeriodNotificationSchema,
        day7: gracePeriodNotificationSchema,
        day21: gracePeriodNotificationSchema,
        day28: gracePeriodNotificationSchema,
      })
      .optional()
      .meta({ description: 'Detail only' }),
    resolutionOptions: z
      .array(
        z.object({
          type: resolutionTypeSchema,
          available: z.boolean(),
          pricing: licensePricingSchema.optional().meta({ description: 'The license option only' }),
        }),
      )
      .optional()
      .meta({ description: 'Detail only' }),
    resolution: z.string().optional().meta({ description: 'Once resolved' }),
    resolvedAt: z.iso.datetime().optional(),
  })
  .meta({ id: 'GracePeriod' });

export const resolvedGracePeriodSchema = z.object({
  id: z.string(),
  status: gracePeriodStatusSchema,
  resolution: resolutionSchema,
  resolvedAt: z.iso.datetime(),
  remainingAvatars: z.number().int().min(0),
});
