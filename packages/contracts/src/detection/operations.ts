import { z } from 'zod';
import { idSchema, storable } from '../common/schemas';
import { MAX_NAME_LENGTH } from '../common/names';
import { defineOperation, IDENTITY_BATCH_TIMEOUT_MS, IDENTITY_CHECK_TIMEOUT_MS } from '../common/operation';
import {
  detectionClassificationSchema,
  detectionLayerSchema,
  enforcementSchema,
  likenessBandSchema,
  matchLayerSchema,
  entityTypeSchema,
  policySchema,
  verificationTierSchema,
} from '../common/identity';

// Detection's public operations: the identity check, single and batch, in both path families
// (docs/spec/service-interface.md, Identity check; docs/spec/contracts.md §12 and §13). Check results are not
// wrapped in `data`.

/** The most identities in one batch (BATCH_TOO_LARGE above). */
export const MAX_BATCH_IDENTITIES = 100;

// Names and image URLs are checked by detection's own rules so that the errors carry the
// interface's codes: INVALID_NAME (400) and INVALID_IMAGE_URL (422), never VALIDATION_ERROR.
const checkedNameSchema = z.string().meta({
  // Stated for clients; enforced by readName with INVALID_NAME rather than by zod.
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  description:
    '1 to 200 characters, at least one letter or digit, no control characters (INVALID_NAME otherwise)',
  example: 'Taylor Swift',
});
const imageUrlInputSchema = z.string().meta({
  description:
    'An http(s) URL of a picture of at most 10 MB, fetched through the outbound-fetch guard ' +
    '(INVALID_IMAGE_URL when it is not an http(s) URL, unreachable, refused or not an image; ' +
    'IMAGE_TOO_LARGE above 10 MB)',
  example: 'https://cdn.example.com/avatars/42.jpg',
});

export const actionSchema = z
  .enum(['ALLOW', 'BLOCK', 'REQUIRE_LICENSE', 'TRACK_REVENUE', 'VERIFY_COMMERCIAL', 'REVIEW_PARODY'])
  .meta({
    description:
      'ALLOW: proceed. BLOCK: prevent avatar creation. REQUIRE_LICENSE: redirect to a licensing flow. ' +
      'TRACK_REVENUE: create the avatar and enable revenue tracking. VERIFY_COMMERCIAL: ask the user ' +
      'about commercial intent. REVIEW_PARODY: allow with a parody disclaimer. Treat an unknown action as not allowed.',
  });

/** What the faces of a checked picture showed (docs/spec/contracts.md §15). */
export const likenessSchema = z
  .object({
    score: z.number().min(0).max(1).meta({
      description:
        "The closest enrolled face's likeness to a face of the picture (1 = the same face); 0 when none was close or the faces were not examined",
    }),
    band: likenessBandSchema,
    faces: z.number().int().min(0).meta({ description: 'Faces found in the checked picture' }),
  })
  .meta({ id: 'Likeness' });

export const otherMatchSchema = z.object({
  claimId: z.string(),
  boxId: z.string().nullable(),
  layer: matchLayerSchema,
  score: z.number().min(0).max(1),
});

export const detectionSchema = z.object({
  layer: detectionLayerSchema,
  matchLayer: matchLayerSchema.optional().meta({
    description:
      'What matched the matched identity, named (absent when nothing matched); `layer` stays the number',
  }),
  classification: detectionClassificationSchema,
  parodyLikelihood: z
    .number()
    .min(0)
    .max(1)
    .meta({ description: 'From the description and context; 0.7 or more makes REVIEW_PARODY possible' }),
  matchedVariations: z
    .array(z.string())
    .meta({ description: 'The protected names the checked name matched' }),
  imageMatchScore: z.number().min(0).max(1).nullable().meta({
    description: "Similarity of the image to the identity's closest reference image; null when none",
  }),
  bestScore: z.number().min(0).max(1).meta({
    description:
      'The highest score of any candidate (name, or face in the review band), also when nothing matched (ALLOW): borderline names and faces can go to review (docs/spec/contracts.md §13, §15)',
  }),
  likeness: likenessSchema.optional().meta({ description: 'Whenever a picture was checked' }),
  otherMatches: z.array(otherMatchSchema).optional().meta({
    description:
      'When the name, the picture and the face point to different identities: the ones not chosen (the matched identity is the one whose action is the most restrictive)',
  }),
});

export const matchedIdentitySchema = z.object({
  claimId: z.string(),
  boxId: z.string().nullable(),
  name: z.string(),
  variations: z.array(z.string()),
  entityType: entityTypeSchema,
  verificationTier: verificationTierSchema,
});

export const identityCheckBodySchema = z.object({
  name: checkedNameSchema,
  imageUrl: imageUrlInputSchema,
  description: storable(z.string().max(5000))
    .optional()
    .meta({ description: 'Improves detection (parody, context)' }),
  context: z
    .string()
    .max(5000)
    .optional()
    .meta({ description: 'The intended use, e.g. "personal fan art" or "commercial advertising"' }),
});

export const identityCheckResultSchema = z
  .object({
    isBoxed: z.boolean(),
    isClaimed: z.boolean().meta({ description: 'A verified claim matched' }),
    confidence: z.number().min(0).max(1),
    matchedIdentity: matchedIdentitySchema.nullable(),
    policy: policySchema.optional().meta({ description: 'When boxed' }),
    enforcement: enforcementSchema.optional().meta({ description: 'When boxed' }),
    policyDetails: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "When boxed: the box's policy configuration (royaltyRate, revenueTypes, ...)" }),
    detection: detectionSchema,
    action: actionSchema,
  })
  .meta({ id: 'IdentityCheckResult' });

export const identityBatchBodySchema = z.object({
  identities: z
    .array(
      z.object({
        name: checkedNameSchema,
        imageUrl: imageUrlInputSchema,
        id: storable(z.string().max(200)).optional().meta({ description: 'Your own id, echoed back' }),
      }),
    )
    .min(1)
    .meta({ description: `At most ${MAX_BATCH_IDENTITIES} (BATCH_TOO_LARGE above)` }),
});

export const itemErrorSchema = z
  .object({ code: z.enum(['INVALID_IMAGE_URL', 'IMAGE_TOO_LARGE']), message: z.string() })
  .meta({
    description:
      'The image of this item could not be checked; the result stands on the name alone. A whole-batch ' +
      'error is returned instead when a name is invalid or an image URL is not an http(s) URL.',
  });

export const identityBatchResultSchema = z
  .object({
    results: z.array(
      z.object({
        id: z.string().optional(),
        name: z.string(),
        isBoxed: z.boolean(),
        isClaimed: z.boolean(),
        confidence: z.number().min(0).max(1),
        policy: policySchema.optional(),
        royaltyRate: z.number().optional().meta({ description: 'For revenue-share policies (MONETIZE)' }),
        action: actionSchema,
        matchLayer: matchLayerSchema.optional(),
        likeness: likenessSchema
          .optional()
          .meta({ description: 'When the item had a picture that was fetched' }),
        error: itemErrorSchema.optional(),
      }),
    ),
    meta: z.object({
      total: z.number().int(),
      boxed: z.number().int(),
      unprotected: z.number().int(),
      processingTime: z.number().int().meta({ description: 'Milliseconds' }),
    }),
  })
  .meta({ id: 'IdentityBatchResult' });

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

const detection = { service: 'detection' as const, tags: ['Identity check'] };

export const detectionOperations = {
  checkIdentity: defineOperation({
    ...detection,
    id: 'checkIdentity',
    errors: ['INVALID_NAME', 'INVALID_IMAGE_URL', 'IMAGE_TOO_LARGE'],
    timeoutMs: IDENTITY_CHECK_TIMEOUT_MS,
    method: 'post',
    path: '/v1/svc/identity/check',
    summary: 'Is this name (and picture) a protected identity, and what must happen?',
    request: {
      body: identityCheckBodySchema,
      // An avatar under a new name whose face is a protected person's (docs/spec/contracts.md §15).
      example: {
        name: 'Ava Lumen',
        imageUrl: 'https://cdn.avatarly.io/avatars/8f2c41.jpg',
        description: 'A friendly pop-star avatar for my fan channel',
        context: 'commercial avatar with paid messages',
      },
    },
    responses: {
      200: {
        description: 'The check result (not wrapped in data)',
        schema: identityCheckResultSchema,
        example: {
          isBoxed: true,
          isClaimed: true,
          confidence: 0.93,
          matchedIdentity: {
            claimId: 'clm_7Qm2xKp9VwL4tR8nB3cZ1d',
            boxId: 'box_3kTq9wXz2LmN8bVc5hJr1s',
            name: 'Ada Lovelace',
            variations: ['Countess of Lovelace', 'Augusta Ada King'],
            entityType: 'INDIVIDUAL',
            verificationTier: 'GOLD',
          },
          policy: 'MONETIZE',
          enforcement: 'MODERATE',
          policyDetails: { royaltyRate: 0.15, revenueTypes: ['subscription', 'per_message'] },
          detection: {
            layer: 6,
            matchLayer: 'face',
            classification: 'FACE_MATCH',
            parodyLikelihood: 0.05,
            matchedVariations: [],
            imageMatchScore: null,
            bestScore: 0.93,
            likeness: { score: 0.93, band: 'match', faces: 1 },
          },
          action: 'TRACK_REVENUE',
        },
      },
    },
  }),
  checkIdentityBatch: defineOperation({
    ...detection,
    id: 'checkIdentityBatch',
    errors: ['INVALID_NAME', 'INVALID_IMAGE_URL', 'BATCH_TOO_LARGE'],
    timeoutMs: IDENTITY_BATCH_TIMEOUT_MS,
    method: 'post',
    path: '/v1/svc/identity/check/batch',
    summary: 'Check up to 100 identities at once',
    request: { body: identityBatchBodySchema },
    responses: {
      200: { description: 'A result per identity, in order, with totals', schema: identityBatchResultSchema },
    },
  }),
  secondFamilyCheckIdentity: defineOperation({
    ...detection,
    tags: ['Second family'],
    id: 'secondFamilyCheckIdentity',
    errors: ['INVALID_NAME', 'INVALID_IMAGE_URL', 'IMAGE_TOO_LARGE'],
    timeoutMs: IDENTITY_CHECK_TIMEOUT_MS,
    method: 'post',
    path: '/identity/check',
    summary: 'Identity check, snake_case (UNCLAIMED, CLAIMED, BOXED)',
    request: { body: secondFamilyCheckBodySchema },
    responses: {
      200: { description: 'The check result', schema: secondFamilyCheckResultSchema },
    },
  }),
  secondFamilyCheckIdentityBatch: defineOperation({
    ...detection,
    tags: ['Second family'],
    id: 'secondFamilyCheckIdentityBatch',
    errors: ['INVALID_NAME', 'INVALID_IMAGE_URL', 'BATCH_TOO_LARGE'],
    timeoutMs: IDENTITY_BATCH_TIMEOUT_MS,
    method: 'post',
    path: '/identity/check/batch',
    summary: 'Identity check of up to 100 identities, snake_case',
    request: { body: secondFamilyBatchBodySchema },
    responses: {
      200: { description: 'A result per identity', schema: secondFamilyBatchResultSchema },
    },
  }),
  identityStatus: defineOperation({
    ...detection,
    tags: ['Second family'],
    id: 'identityStatus',
    method: 'get',
    path: '/identity/status/:id',
    summary: 'The current boxing status of a known (verified) identity, by claim id or box id',
    request: { params: z.object({ id: idSchema }) },
    responses: {
      200: { description: 'The status', schema: identityStatusSchema },
      404: { description: 'NOT_FOUND: no verified identity with this id' },
    },
  }),
};

// The internal avatar evaluation (docs/spec/architecture.md: detection serves it to enforcement). Not a
// public operation: only a service holding an internal token reaches it.

/** Enforcement's call to detection: which box, if any, does each avatar match? */
export const AVATAR_EVALUATION_PATH = '/internal/avatar-evaluations';

export const avatarEvaluationRequestSchema = z.object({
  avatars: z
    .array(
      z.object({
        /** The caller's reference, echoed back (e.g. the avatar's row id). */
        ref: storable(z.string().min(1).max(200)),
        name: storable(z.string().min(1).max(200)),
        description: storable(z.string().max(5000)).optional(),
        imageUrl: storable(z.string().max(2048)).optional(),
      }),
    )
    .min(1)
    .max(MAX_BATCH_IDENTITIES),
  /** Only this box is considered (a new box's initial scan). */
  boxId: z.string().optional(),
});

export const avatarMatchSchema = z.object({
  boxId: z.string(),
  claimId: z.string(),
  identityName: z.string(),
  ownerPlatformId: z.string(),
  policy: policySchema,
  enforcement: enforcementSchema,
  policyConfig: z.record(z.string(), z.unknown()),
  confidence: z.number().min(0).max(1),
  layer: detectionLayerSchema,
  classification: detectionClassificationSchema,
  matchedVariations: z.array(z.string()),
  imageMatchScore: z.number().min(0).max(1).nullable(),
  parodyLikelihood: z.number().min(0).max(1),
  /** The face's likeness when a face decided or helped (absent otherwise). */
  likenessScore: z.number().min(0).max(1).optional(),
});

/**
 * How far the answering replica's index had read detection's projection when it answered: every
 * change up to `position` of projection `projection` (its id: a rebuilt projection numbers its
 * changes anew). Answers of one projection are ordered by it, whatever order they were asked in:
 * an answer asked earlier can know more than one asked later (its request waited longer, or
 * reached a replica that had read further).
 */
export const indexKnowledgeSchema = z.object({
  projection: z.string(),
  position: z.number().int().nonnegative(),
});

export const avatarEvaluationResponseSchema = z.object({
  /** Absent from a replica of an earlier release. */
  knowledge: indexKnowledgeSchema.optional(),
  results: z.array(
    z.object({
      ref: z.string(),
      /** The best matching box at or above its enforcement level's threshold, or null. */
      match: avatarMatchSchema.nullable(),
    }),
  ),
});

/**
 * Enforcement's question before a box's initial scan (issue #34): the match keys of the box's
 * identity as detection's name index holds it (@svc/name-matching's identityMatchKeys). Only
 * avatars whose keys meet these, or that carry a picture, can match the box; `version` is the rules'
 * (MATCH_KEYS_VERSION): a caller whose avatars' keys were made by other rules asks about them all.
 */
export const BOX_MATCH_KEYS_PATH = '/internal/boxes/:boxId/match-keys';

export const boxMatchKeysResponseSchema = z.object({
  version: z.number().int(),
  /** Empty when detection does not hold the box (the scan's questions would all answer null). */
  keys: z.array(z.number().int()),
});

export type BoxMatchKeysResponse = z.output<typeof boxMatchKeysResponseSchema>;

export type AvatarEvaluationRequest = z.input<typeof avatarEvaluationRequestSchema>;
export type AvatarMatch = z.output<typeof avatarMatchSchema>;
export type AvatarEvaluationResponse = z.output<typeof avatarEvaluationResponseSchema>;
export type IndexKnowledge = z.output<typeof indexKnowledgeSchema>;

// The registry's call before it answers a deletion (docs/spec/contracts.md §15: deleting an image or
// a claim, or rejecting a claim, removes its descriptors before the response). Internal only.

/** The registry asks detection to forget the faces of a claim (or of some of its images) now. */
export const FORGET_FACES_PATH = '/internal/face-enrolments/forget';

export const forgetFacesRequestSchema = z.object({
  claimId: idSchema,
  /** Only these images (removed from the claim); absent: every image of the claim. */
  imageIds: z.array(idSchema).max(100).optional(),
});

export const forgetFacesResponseSchema = z.object({ forgotten: z.number().int().min(0) });

export type ForgetFacesRequest = z.input<typeof forgetFacesRequestSchema>;
