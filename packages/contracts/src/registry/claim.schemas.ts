import { z } from 'zod';
import { pageQuerySchema, storable } from '../common/schemas';
import { MAX_NAME_LENGTH } from '../common/names';
import { entityTypeSchema, faceStatusSchema, verificationTierSchema } from '../common/identity';

// Claims: what a creator sends, the claim it gets back, and the operator's review forms.

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
