import { z } from 'zod';
import { logEntryField } from '../common/log-entry';
import { idSchema, pageQuerySchema, storable } from '../common/schemas';
import { detectionClassificationSchema, detectionLayerSchema, policySchema } from '../common/identity';
import {
  violationStatusSchema,
  gracePeriodStatusSchema,
  severitySchema,
  resolutionSchema,
  appealReasonSchema,
  appealStatusSchema,
  avatarIdSchema,
  httpUrlSchema,
  violationNotificationsSchema,
  licensePricingSchema,
  resolutionTypeSchema,
} from './vocabulary.schemas';

// Violations: their list query, resolve and appeal bodies, the host's and the box owner's forms.

export const listViolationsQuerySchema = pageQuerySchema.extend({
  status: violationStatusSchema.optional(),
  boxId: idSchema.optional(),
  severity: severitySchema.optional(),
});

export const resolveBodySchema = z.object({
  resolution: resolutionSchema,
  avatarId: avatarIdSchema.meta({ description: 'The avatar of the violation (your own avatar id)' }),
  licenseId: idSchema
    .optional()
    .meta({ description: 'Required for resolution licensed: your active license on the box' }),
  notes: storable(z.string().max(2000)).optional(),
});

export const appealBodySchema = z.object({
  reason: appealReasonSchema,
  explanation: storable(z.string().trim().min(1).max(5000)),
  evidence: z.array(httpUrlSchema).max(20).optional().meta({ description: 'URLs of supporting material' }),
});

const violationAvatarSchema = z.object({
  id: avatarIdSchema,
  name: z.string(),
  creatorId: z.string(),
  userCount: z.number().int(),
  description: z.string().nullable().optional().meta({ description: 'Detail only' }),
  imageUrl: z.string().nullable().optional().meta({ description: 'Detail only' }),
  creatorName: z.string().nullable().optional().meta({ description: 'Detail only' }),
  createdAt: z.iso.datetime().optional().meta({ description: 'Detail only' }),
});

const violationDetectionSchema = z.object({
  confidence: z.number().min(0).max(1),
  layer: detectionLayerSchema,
  classification: detectionClassificationSchema,
  matchedVariations: z.array(z.string()).optional().meta({ description: 'Detail only' }),
  imageMatchScore: z.number().nullable().optional().meta({ description: 'Detail only' }),
  parodyLikelihood: z.number().optional().meta({ description: 'Detail only' }),
});

const appealSummarySchema = z.object({
  id: z.string().meta({ example: 'appeal_7hR2kLm9Xq4Tz1Wn8BvC3d' }),
  reason: appealReasonSchema,
  status: appealStatusSchema,
  submittedAt: z.iso.datetime(),
  estimatedReviewTime: z.string().meta({ example: '24-48 hours' }),
  decidedAt: z.iso.datetime().optional(),
});

const avatarSnapshotSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  commercial: z.boolean(),
});

export const contestStatusSchema = z.enum(['pending', 'upheld', 'denied']).meta({
  description:
    'pending: under review (24-48 hours). upheld: the resolution is set aside, the violation is pending again ' +
    'with the time it had left. denied: the resolution stands.',
});

const contestSummarySchema = z.object({
  id: z.string().meta({ example: 'appeal_2sD8kLm9Xq4Tz1Wn8BvC3e' }),
  status: contestStatusSchema,
  submittedAt: z.iso.datetime(),
  estimatedReviewTime: z.string().meta({ example: '24-48 hours' }),
  decidedAt: z.iso.datetime().optional(),
});

/** How a violation was resolved and on what evidence (the host's detail and the box owner's list). */
export const resolutionDetailsSchema = z
  .object({
    resolution: resolutionSchema,
    resolvedAt: z.iso.datetime(),
    resolvedBy: z.enum(['platform', 'license', 'avatar_change']).meta({
      description:
        "platform: the hosting platform's resolve call (checked against the facts). license: its license on the " +
        'box became active. avatar_change: the avatar was changed or deleted and evaluated again.',
    }),
    notes: z.string().nullable(),
    license: z
      .object({ id: z.string(), tier: z.string().nullable() })
      .nullable()
      .meta({ description: 'licensed: the active license that covers the avatar' }),
    avatarChange: z
      .object({
        detected: avatarSnapshotSchema
          .nullable()
          .meta({ description: 'The avatar when the violation was detected' }),
        resolved: avatarSnapshotSchema.nullable().meta({ description: 'The avatar when it was resolved' }),
        removedAt: z.iso.datetime().nullable().meta({ description: 'removed: when it was taken down' }),
      })
      .nullable(),
    reevaluation: z
      .object({
        matched: z.boolean(),
        confidence: z.number().nullable(),
        parodyLikelihood: z.number().nullable(),
      })
      .nullable()
      .meta({ description: "modified, parody: detection's answer about the avatar as it was when resolved" }),
    contest: contestSummarySchema
      .nullable()
      .meta({ description: "The box owner's latest contest of this resolution" }),
  })
  .meta({ id: 'ResolutionDetails' });

export const violationSchema = z
  .object({
    id: z.string().meta({ example: 'viol_3kT9mQx2Lw7NbV4hJd1sZp' }),
    boxId: z.string(),
    identityName: z.string(),
    policy: policySchema.optional().meta({ description: 'Detail only' }),
    status: violationStatusSchema,
    severity: severitySchema,
    detectedAt: z.iso.datetime(),
    avatar: violationAvatarSchema,
    detection: violationDetectionSchema,
    gracePeriod: z.object({
      id: z.string(),
      expiresAt: z.iso.datetime(),
      daysRemaining: z.number().int().min(0),
      status: gracePeriodStatusSchema.optional().meta({ description: 'Detail only' }),
      startedAt: z.iso.datetime().optional().meta({ description: 'Detail only' }),
      notifications: violationNotificationsSchema.optional().meta({ description: 'Detail only' }),
    }),
    notifications: violationNotificationsSchema,
    resolutionOptions: z
      .array(
        z.object({
          type: resolutionTypeSchema,
          description: z.string(),
          available: z.boolean(),
          pricing: licensePricingSchema.optional().meta({ description: 'The license option only' }),
        }),
      )
      .optional()
      .meta({ description: 'Detail only' }),
    resolution: z.string().optional().meta({ description: 'Once resolved' }),
    resolvedAt: z.iso.datetime().optional(),
    resolutionDetails: resolutionDetailsSchema
      .optional()
      .meta({ description: 'Detail only, once resolved: who resolved it, on what evidence' }),
    appeal: appealSummarySchema.optional().meta({ description: 'Detail only, once appealed' }),
    logEntry: logEntryField,
  })
  .meta({ id: 'Violation' });

/**
 * A violation of the box owner's box, as the owner sees it: no personal data of the hosting
 * platform's users (no creator id, name or e-mail, no notification recipients).
 */
export const boxViolationSchema = z
  .object({
    id: z.string(),
    boxId: z.string(),
    identityName: z.string(),
    platformId: z.string().meta({ description: 'The platform hosting the avatar' }),
    platformName: z.string().nullable().meta({
      description:
        "The hosting platform's name when it reported the avatar (null for avatars reported before names were kept)",
      example: 'Avatar Studio',
    }),
    status: violationStatusSchema,
    severity: severitySchema,
    detectedAt: z.iso.datetime(),
    avatar: z.object({
      id: avatarIdSchema,
      name: z.string(),
      description: z.string().nullable(),
      imageUrl: z.string().nullable(),
      userCount: z.number().int(),
      status: z.enum(['reported', 'removed']),
    }),
    detection: violationDetectionSchema,
    gracePeriod: z.object({
      id: z.string(),
      status: gracePeriodStatusSchema,
      expiresAt: z.iso.datetime(),
      daysRemaining: z.number().int().min(0),
    }),
    resolution: resolutionDetailsSchema
      .nullable()
      .meta({ description: 'Once resolved by the platform, its license or an avatar change' }),
    contestableUntil: z.iso.datetime().nullable().meta({
      description: 'While resolved: the end of the grace period, until which the resolution can be contested',
    }),
    logEntry: logEntryField,
  })
  .meta({ id: 'BoxViolation' });

export const listBoxViolationsQuerySchema = pageQuerySchema.extend({
  status: violationStatusSchema.optional(),
});

export const contestBodySchema = z.object({
  explanation: storable(z.string().trim().min(1).max(5000)).meta({
    description: 'Why the resolution does not hold (e.g. the avatar is still online under the name)',
  }),
  evidence: z.array(httpUrlSchema).max(20).optional().meta({ description: 'URLs of supporting material' }),
});

export const contestedViolationSchema = z.object({
  id: z.string(),
  status: violationStatusSchema,
  contest: contestSummarySchema,
});

export const resolvedViolationSchema = z.object({
  id: z.string(),
  status: violationStatusSchema,
  resolution: resolutionSchema,
  resolvedAt: z.iso.datetime(),
  gracePeriod: z.object({ id: z.string(), status: gracePeriodStatusSchema }),
});

export const appealedViolationSchema = z.object({
  id: z.string(),
  status: violationStatusSchema,
  appeal: appealSummarySchema,
  gracePeriod: z.object({ id: z.string(), status: gracePeriodStatusSchema }),
});
