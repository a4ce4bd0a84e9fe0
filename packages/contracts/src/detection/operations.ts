import { z } from 'zod';
import { idSchema } from '../common/schemas';
import { defineOperation, IDENTITY_BATCH_TIMEOUT_MS, IDENTITY_CHECK_TIMEOUT_MS } from '../common/operation';
import {
  identityCheckBodySchema,
  identityCheckResultSchema,
  identityBatchBodySchema,
  identityBatchResultSchema,
} from './identity-check.schemas';
import {
  secondFamilyCheckBodySchema,
  secondFamilyCheckResultSchema,
  secondFamilyBatchBodySchema,
  secondFamilyBatchResultSchema,
  identityStatusSchema,
} from './second-family.schemas';

// Detection's public operations: the identity check, single and batch, in both path families
// (docs/spec/service-interface.md, Identity check; docs/spec/contracts.md §12 and §13). Check results are not
// wrapped in `data`.

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
