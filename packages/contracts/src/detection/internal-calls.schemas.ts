import { z } from 'zod';
import { idSchema, storable } from '../common/schemas';
import {
  detectionClassificationSchema,
  detectionLayerSchema,
  enforcementSchema,
  policySchema,
} from '../common/identity';
import { MAX_BATCH_IDENTITIES } from './identity-check.schemas';

// Detection's internal endpoints: the avatar evaluation enforcement calls, a box's match keys, and forgetting faces.

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
