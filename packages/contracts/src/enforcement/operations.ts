import { z } from 'zod';
import { logEntryField } from '../common/log-entry';
import { dataOf, idParamSchema, idSchema, listOf, pageQuerySchema, storable } from '../common/schemas';
import { detectionClassificationSchema, detectionLayerSchema, policySchema } from '../common/identity';
import { defineOperation } from '../common/operation';

// Enforcement's public operations (docs/spec/service-interface.md: Violation, Grace period, Endpoints
// /violations and /grace-periods; docs/spec/contracts.md §8 avatars and appeals, §9 test helpers, §12
// obligations). The same schemas validate requests in services/enforcement and build the OpenAPI document.

export const violationStatusSchema = z
  .enum(['pending', 'resolved', 'enforced', 'appealed', 'dismissed'])
  .meta({
    description:
      'pending: in its grace period. resolved: the platform complied (licensed, removed, modified, parody). ' +
      'enforced: the grace period ran out; the avatar is to be deactivated. appealed: under human review, ' +
      'the grace period is paused. dismissed: a false positive (appeal upheld) or the box was removed.',
  });

export const gracePeriodStatusSchema = z.enum(['active', 'paused', 'resolved', 'expired', 'cancelled']).meta({
  description:
    'active: counting down. paused: an appeal is under review (the countdown resumes with the paused time ' +
    'added back if it is denied). resolved: the avatars complied or the appeal was upheld. expired: time ran ' +
    'out, enforcement triggered. cancelled: the box was removed.',
});

export const severitySchema = z.enum(['low', 'medium', 'high', 'critical']).meta({
  description:
    'From the avatar’s user count: critical ≥ 10,000, high ≥ 1,000, medium ≥ 100, else low; one step lower ' +
    'when the detection confidence is below 0.85 (never below low). Every severity has the same grace period.',
});

export const resolutionSchema = z.enum(['licensed', 'removed', 'modified', 'parody']).meta({
  description:
    'Checked against the facts, never taken at its word (409 INVALID_STATE with what would resolve it). ' +
    'licensed: licenseId names your active license on the box whose tier covers the avatar (a commercial avatar ' +
    'needs commercial or enterprise). removed: the avatar is taken down by this call (re-reporting it runs ' +
    'detection again). modified: the avatar as it is now is evaluated again and no longer breaks the policy. ' +
    'parody: the box admits parody (not STRICT, not BLOCK_ALL) and the avatar is likely parody (≥ 0.7).',
});

export const appealReasonSchema = z
  .enum(['parody', 'false_positive', 'common_name', 'authorized', 'other'])
  .meta({
    description:
      'parody: parody or satire. false_positive: the detection is incorrect. common_name: the name is common ' +
      'and not the protected identity. authorized: verbal or informal authorization. other.',
  });

export const appealStatusSchema = z.enum(['pending', 'upheld', 'denied', 'withdrawn']).meta({
  description:
    'pending: awaiting review (24-48 hours). upheld: the violation is dismissed. denied: the violation is ' +
    'pending again and its grace period resumes. withdrawn: the violation was resolved meanwhile.',
});

export const avatarEvaluationStatusSchema = z.enum(['pending', 'completed']).meta({
  description:
    'pending: waiting for detection (it is retried until it answers; nothing is lost). completed: detection ' +
    'answered and the policy was applied.',
});

export const avatarMatchOutcomeSchema = z
  .enum(['violation', 'licensed', 'authorized', 'allowed', 'monitored', 'parody'])
  .meta({
    description:
      'violation: the avatar breaks the box policy (a violation and its grace period exist). licensed: the ' +
      'platform holds an active license on the box. authorized: TEAM, the creator or platform is authorized. ' +
      'allowed: the policy allows this use (e.g. non-commercial under BLOCK_COMMERCIAL). monitored: OPEN, ' +
      'recorded for monitoring only. parody: likely parody of a non-STRICT box (allowed with a disclaimer).',
  });

/** A platform's own avatar id: 1 to 200 characters of letters, digits and `._:-`. */
export const avatarIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'expected 1 to 200 letters, digits or ._:-')
  .meta({ description: "The platform's own avatar id", example: 'avatar-42' });

const httpUrlSchema = storable(z.string().max(2048))
  .refine((value) => {
    try {
      const protocol = new URL(value).protocol;
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'expected an http(s) URL')
  .meta({ example: 'https://avatarly.io/avatars/8f2c41' });

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

export const listViolationsQuerySchema = pageQuerySchema.extend({
  status: violationStatusSchema.optional(),
  boxId: idSchema.optional(),
  severity: severitySchema.optional(),
});

export const listGracePeriodsQuerySchema = pageQuerySchema.extend({
  status: gracePeriodStatusSchema.optional(),
  boxId: idSchema.optional(),
  expiringWithin: z.coerce.number().int().min(0).max(3650).optional().meta({
    description: 'Grace periods that expire within this many days (sandbox days: 1/30 of 24 hours)',
  }),
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

export const decideAppealBodySchema = z.object({
  outcome: z.enum(['upheld', 'denied']).meta({
    description:
      'upheld: the violation is dismissed and its grace period resolved. denied: the violation is pending ' +
      'again and its grace period active, with the paused time added back.',
  }),
  notes: storable(z.string().max(2000)).optional(),
});

/**
 * At most a year at once: every step that falls due (reminders, expiries, renewals, each month's
 * fee) runs before the answer, so a decade in one call could outlast the request's budget. Call
 * again to go further.
 */
export const advanceTimeBodySchema = z.object({
  seconds: z.number().int().min(1).max(31_536_000).meta({
    description:
      'How far to move your sandbox clock forward (at most 365 days a call); every timed step that falls due fires, in order',
  }),
});

const notificationSentSchema = z.object({
  sent: z.boolean(),
  at: z.iso.datetime().optional().meta({ description: 'When sent' }),
});

export const violationNotificationsSchema = z.object({
  day0: notificationSentSchema,
  day7: notificationSentSchema,
  day21: notificationSentSchema,
  day28: notificationSentSchema,
});

const gracePeriodNotificationSchema = notificationSentSchema.extend({
  scheduledAt: z.iso.datetime().optional().meta({ description: 'When it is due (pauses push it back)' }),
  recipients: z.array(z.string()).optional().meta({ description: 'Personal data: detail responses only' }),
});

const licensePricingSchema = z
  .object({
    personal: z.number().nullable(),
    creator: z.number().nullable(),
    commercial: z.number().nullable(),
  })
  .meta({ description: "Monthly prices of the box's license tiers; null when a tier is not offered" });

const resolutionTypeSchema = z.enum(['license', 'remove', 'modify', 'appeal']);

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

export const appealSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['appeal', 'contest']).meta({
      description:
        "appeal: the hosting platform's, of a violation. contest: the box owner's, of a resolution",
    }),
    violationId: z.string(),
    gracePeriodId: z.string(),
    reason: appealReasonSchema,
    explanation: z.string(),
    evidence: z.array(z.string()),
    status: appealStatusSchema,
    submittedAt: z.iso.datetime(),
    estimatedReviewTime: z.string(),
    decidedAt: z.iso.datetime().nullable(),
    notes: z.string().nullable(),
    logEntry: logEntryField,
  })
  .meta({ id: 'Appeal' });

/** The operator's queue of appeals (GET /admin/appeals). */
export const reviewAppealsQuerySchema = pageQuerySchema.extend({
  status: appealStatusSchema
    .default('pending')
    .meta({ description: 'Default `pending`: the appeals awaiting a decision' }),
});

export const reviewAppealSchema = appealSchema
  .extend({
    platformId: z
      .string()
      .meta({ description: 'Who filed it: the hosting platform, or the box owner (contest)' }),
    violation: z.object({
      id: z.string(),
      status: violationStatusSchema,
      boxId: z.string(),
      identityName: z.string(),
      avatar: z.object({ id: z.string().nullable(), name: z.string().nullable() }),
    }),
  })
  .meta({ id: 'ReviewAppeal' });

export const decidedAppealSchema = appealSchema.extend({
  violation: z.object({ id: z.string(), status: violationStatusSchema }),
  gracePeriod: z.object({ id: z.string(), status: gracePeriodStatusSchema, expiresAt: z.iso.datetime() }),
});

export const advancedTimeSchema = z.object({
  now: z.iso.datetime().meta({ description: 'Your sandbox clock after the move' }),
  advancedBySeconds: z.number().int(),
  stepsFired: z.number().int().meta({ description: 'Reminders, ending warnings and expiries that fired' }),
});

export const sandboxClockSchema = z.object({
  now: z.iso.datetime().meta({ description: 'Your sandbox clock now: what your deadlines run on' }),
  aheadBySeconds: z
    .number()
    .int()
    .meta({ description: 'How far your sandbox clock runs ahead of real time (0 until you advance it)' }),
});

export const obligationsSchema = z
  .object({
    takedowns: z.array(
      z.object({
        violation_id: z.string(),
        avatar_id: z.string(),
        avatar_name: z.string(),
        creator_id: z.string(),
        box_id: z.string(),
        identity_id: z.string(),
        identity_name: z.string(),
        enforced_at: z.string(),
      }),
    ),
    grace_periods: z.array(
      z.object({
        grace_period_id: z.string(),
        violation_id: z.string(),
        box_id: z.string(),
        identity_id: z.string(),
        identity_name: z.string(),
        status: gracePeriodStatusSchema,
        started_at: z.string(),
        expires_at: z.string(),
        days_remaining: z.number().int(),
        avatar_ids: z.array(z.string()),
      }),
    ),
    truncated: z.boolean().meta({ description: 'True when a list was cut at 1000 items (newest first)' }),
  })
  .meta({
    id: 'EnforcementObligations',
    description:
      'takedowns: enforced violations whose avatar you still report (deactivate it, then DELETE it). ' +
      'grace_periods: active or paused grace periods.',
  });

const avatars = { service: 'enforcement' as const, tags: ['Avatars'] };
const violations = { service: 'enforcement' as const, tags: ['Violations'] };
const gracePeriods = { service: 'enforcement' as const, tags: ['Grace periods'] };
const avatarParams = { params: avatarIdParamSchema };
const idParams = { params: idParamSchema };
const invalidState = { 409: { description: 'INVALID_STATE: not allowed from the current state' } };

export const enforcementOperations = {
  reportAvatar: defineOperation({
    ...avatars,
    id: 'reportAvatar',
    method: 'post',
    path: '/v1/svc/avatars',
    summary: 'Report an avatar you host (re-posting the same id updates it); it is run through detection',
    request: { body: reportAvatarBodySchema },
    responses: {
      201: { description: 'Reported', schema: dataOf(avatarSchema) },
      200: { description: 'Updated (the id was already reported)', schema: dataOf(avatarSchema) },
    },
  }),
  listAvatars: defineOperation({
    ...avatars,
    id: 'listAvatars',
    method: 'get',
    path: '/v1/svc/avatars',
    summary: 'The avatars you reported, newest first',
    request: { query: listAvatarsQuerySchema },
    responses: { 200: { description: 'Avatars (without creatorEmail)', schema: listOf(avatarSchema) } },
  }),
  getAvatar: defineOperation({
    ...avatars,
    id: 'getAvatar',
    method: 'get',
    path: '/v1/svc/avatars/:id',
    summary: 'One of your avatars',
    request: avatarParams,
    responses: { 200: { description: 'The avatar', schema: dataOf(avatarSchema) } },
  }),
  updateAvatar: defineOperation({
    ...avatars,
    id: 'updateAvatar',
    method: 'patch',
    path: '/v1/svc/avatars/:id',
    summary:
      'Change an avatar; it is evaluated again (an avatar that no longer breaks the policy resolves its violation as modified)',
    request: { ...avatarParams, body: updateAvatarBodySchema },
    responses: { 200: { description: 'The avatar', schema: dataOf(avatarSchema) } },
  }),
  deleteAvatar: defineOperation({
    ...avatars,
    id: 'deleteAvatar',
    method: 'delete',
    path: '/v1/svc/avatars/:id',
    summary: 'Stop reporting an avatar (you took it down): its open violations are resolved as removed',
    request: avatarParams,
    responses: { 200: { description: 'Deleted', schema: dataOf(deletedAvatarSchema) } },
  }),
  listViolations: defineOperation({
    ...violations,
    id: 'listViolations',
    method: 'get',
    path: '/v1/svc/violations',
    summary: 'Violations of avatars you host, newest first',
    request: { query: listViolationsQuerySchema },
    responses: { 200: { description: 'Violations (list form)', schema: listOf(violationSchema) } },
  }),
  getViolation: defineOperation({
    ...violations,
    id: 'getViolation',
    method: 'get',
    path: '/v1/svc/violations/:id',
    summary: 'One violation (detail form)',
    request: idParams,
    responses: { 200: { description: 'The violation', schema: dataOf(violationSchema) } },
  }),
  resolveViolation: defineOperation({
    ...violations,
    id: 'resolveViolation',
    method: 'post',
    path: '/v1/svc/violations/:id/resolve',
    summary: 'Resolve a pending (or appealed) violation: its grace period becomes resolved',
    request: { ...idParams, body: resolveBodySchema },
    responses: { 200: { description: 'Resolved', schema: dataOf(resolvedViolationSchema) }, ...invalidState },
  }),
  appealViolation: defineOperation({
    ...violations,
    id: 'appealViolation',
    method: 'post',
    path: '/v1/svc/violations/:id/appeal',
    summary: 'Appeal a pending violation: its grace period is paused until the appeal is decided',
    request: { ...idParams, body: appealBodySchema },
    responses: { 200: { description: 'Appealed', schema: dataOf(appealedViolationSchema) }, ...invalidState },
  }),
  getAppeal: defineOperation({
    ...violations,
    id: 'getAppeal',
    method: 'get',
    path: '/v1/svc/appeals/:id',
    summary: 'One of your appeals',
    request: idParams,
    responses: { 200: { description: 'The appeal', schema: dataOf(appealSchema) } },
  }),
  listGracePeriods: defineOperation({
    ...gracePeriods,
    id: 'listGracePeriods',
    method: 'get',
    path: '/v1/svc/grace-periods',
    summary: 'Grace periods of avatars you host, newest first',
    request: { query: listGracePeriodsQuerySchema },
    responses: { 200: { description: 'Grace periods (list form)', schema: listOf(gracePeriodSchema) } },
  }),
  getGracePeriod: defineOperation({
    ...gracePeriods,
    id: 'getGracePeriod',
    method: 'get',
    path: '/v1/svc/grace-periods/:id',
    summary: 'One grace period (detail form, with the affected avatars and notifications)',
    request: idParams,
    responses: { 200: { description: 'The grace period', schema: dataOf(gracePeriodSchema) } },
  }),
  resolveGracePeriod: defineOperation({
    ...gracePeriods,
    id: 'resolveGracePeriod',
    method: 'post',
    path: '/v1/svc/grace-periods/:id/resolve',
    summary: 'Resolve an active (or paused) grace period: its violation becomes resolved',
    request: { ...idParams, body: resolveBodySchema },
    responses: {
      200: { description: 'Resolved', schema: dataOf(resolvedGracePeriodSchema) },
      ...invalidState,
    },
  }),
  listBoxViolations: defineOperation({
    ...violations,
    id: 'listBoxViolations',
    method: 'get',
    path: '/v1/svc/boxes/:id/violations',
    summary:
      "Box owner: the violations of your box, newest first, with how each was resolved (without the hosting platform's personal data)",
    request: { ...idParams, query: listBoxViolationsQuerySchema },
    responses: {
      200: { description: 'Violations of the box', schema: listOf(boxViolationSchema) },
      404: { description: 'NOT_FOUND: no such box, or it is not yours' },
    },
  }),
  contestResolution: defineOperation({
    ...violations,
    id: 'contestResolution',
    method: 'post',
    path: '/v1/svc/violations/:id/contest',
    summary:
      'Box owner: contest how a violation of your box was resolved, within its grace period; the operator reviews it as an appeal (upheld: the violation is pending again with the time it had left)',
    request: { ...idParams, body: contestBodySchema },
    responses: {
      200: { description: 'Contested', schema: dataOf(contestedViolationSchema) },
      404: { description: 'NOT_FOUND: no such violation on a box of yours' },
      ...invalidState,
    },
  }),
  listAppealsForReview: defineOperation({
    service: 'enforcement',
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminListAppeals',
    method: 'get',
    path: '/admin/appeals',
    summary:
      "Every platform's appeals and box owners' contests of one status (default pending: awaiting a decision), oldest first",
    request: { query: reviewAppealsQuerySchema },
    responses: {
      200: { description: 'Appeals, each with its violation', schema: listOf(reviewAppealSchema) },
    },
  }),
  decideAppeal: defineOperation({
    service: 'enforcement',
    tags: ['Operator'],
    auth: 'operator',
    id: 'adminDecideAppeal',
    method: 'post',
    path: '/admin/appeals/:id/decide',
    summary:
      "The reviewer's decision on a pending appeal, or on a box owner's contest of a resolution (upheld: the contest wins)",
    request: { ...idParams, body: decideAppealBodySchema },
    responses: { 200: { description: 'Decided', schema: dataOf(decidedAppealSchema) }, ...invalidState },
  }),
  testHelperDecideAppeal: defineOperation({
    service: 'enforcement',
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperDecideAppeal',
    method: 'post',
    path: '/v1/svc/test-helpers/appeals/:id/decide',
    summary: 'Decide one of your own pending appeals at once (sandbox keys only)',
    request: { ...idParams, body: decideAppealBodySchema },
    responses: { 200: { description: 'Decided', schema: dataOf(decidedAppealSchema) }, ...invalidState },
  }),
  testHelperAdvanceTime: defineOperation({
    service: 'enforcement',
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperAdvanceTime',
    method: 'post',
    path: '/v1/svc/test-helpers/advance-time',
    summary:
      'Move your sandbox clock forward: every reminder, ending warning, expiry (and license expiry) that falls due fires, in order',
    request: { body: advanceTimeBodySchema },
    responses: {
      200: { description: 'Your clock now', schema: dataOf(advancedTimeSchema) },
      403: { description: 'FORBIDDEN: live keys' },
    },
  }),
  testHelperReadClock: defineOperation({
    service: 'enforcement',
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperReadClock',
    method: 'get',
    path: '/v1/svc/test-helpers/clock',
    summary: 'Read your sandbox clock (what grace periods, reminders and license expiries run on)',
    responses: {
      200: { description: 'Your clock now', schema: dataOf(sandboxClockSchema) },
      403: { description: 'FORBIDDEN: live keys' },
    },
  }),
  obligations: defineOperation({
    service: 'enforcement',
    tags: ['Second family'],
    id: 'enforcementObligations',
    method: 'get',
    path: '/enforcement/obligations',
    summary: 'Pending takedowns and open grace periods, snake_case',
    responses: { 200: { description: 'Your obligations', schema: obligationsSchema } },
  }),
};
