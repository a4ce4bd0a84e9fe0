import { z } from 'zod';
import { storable } from '../common/schemas';
import { MAX_NAME_LENGTH } from '../common/names';
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

// The identity check, single and batch: what is sent and what is answered (first family, camelCase).

/** The most identities in one batch (BATCH_TOO_LARGE above). */
export const MAX_BATCH_IDENTITIES = 100;

// Names and image URLs are checked by detection's own rules so that the errors carry the
// interface's codes: INVALID_NAME (400) and INVALID_IMAGE_URL (422), never VALIDATION_ERROR.
export const checkedNameSchema = z.string().meta({
  // Stated for clients; enforced by readName with INVALID_NAME rather than by zod.
  minLength: 1,
  maxLength: MAX_NAME_LENGTH,
  description:
    '1 to 200 characters, at least one letter or digit, no control characters (INVALID_NAME otherwise)',
  example: 'Taylor Swift',
});
export const imageUrlInputSchema = z.string().meta({
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
