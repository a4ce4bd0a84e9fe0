import { z } from 'zod';
import { logEntryField, logEntrySchema } from '../common/log-entry';
import { exampleCredential, exampleJwks, exampleStatusList } from './proof-examples';
import {
  MAX_INT32,
  dataOf,
  idParamSchema,
  idSchema,
  listOf,
  pageQuerySchema,
  storable,
} from '../common/schemas';
import { hasWholeCents } from '@svc/money';
import { defineOperation } from '../common/operation';

// Licensing's public operations (docs/spec/service-interface.md, Endpoints: Licenses; docs/spec/contracts.md §8,
// §9, §12). The same schemas validate requests in services/licensing and build the OpenAPI document.

export const licenseTierSchema = z.enum(['personal', 'creator', 'commercial', 'enterprise']);
export const licenseStatusSchema = z.enum(['pending', 'active', 'expired', 'revoked', 'cancelled']);
export const licenseRequestStatusSchema = z.enum(['pending', 'approved', 'denied']);

const termMonthsSchema = z.number().int().min(1).max(36);

export const requestLicenseBodySchema = z.object({
  boxId: idSchema,
  tier: licenseTierSchema,
  useCase: storable(z.string().trim().min(1).max(2000)),
  estimatedUsers: z.number().int().min(0).max(MAX_INT32).optional(),
  acceptGuidelines: z.literal(true, { error: 'acceptGuidelines must be true' }),
  message: storable(z.string().max(2000)).optional().meta({ description: 'To the identity owner' }),
  term: termMonthsSchema.optional().meta({ description: 'Months the license runs once approved; default 1' }),
  autoRenew: z.boolean().optional().meta({ description: 'Renew for another term at expiry; default true' }),
});

export const listLicensesQuerySchema = pageQuerySchema.extend({
  status: licenseStatusSchema.optional(),
  boxId: idSchema.optional(),
  tier: licenseTierSchema.optional(),
});

export const listBoxLicenseRequestsQuerySchema = pageQuerySchema.extend({
  status: licenseRequestStatusSchema.optional(),
});

export const renewLicenseBodySchema = z.object({
  term: termMonthsSchema.meta({ description: 'Months added to the current expiry' }),
  tier: licenseTierSchema
    .optional()
    .meta({ description: 'A new tier (e.g. an upgrade) re-prices the license' }),
});

export const cancelLicenseBodySchema = z.object({
  reason: storable(z.string().trim().min(1).max(1000)).optional(),
  effectiveDate: z.enum(['immediate', 'end_of_billing_period']).optional().meta({
    description: 'Default immediate; end_of_billing_period keeps it active until the end of the month',
  }),
});

export const revokeLicenseBodySchema = z.object({
  reason: storable(z.string().trim().min(1).max(1000)).optional(),
});
export const denyLicenseRequestBodySchema = z.object({
  reason: storable(z.string().trim().min(1).max(1000)),
});

export const identityIdParamSchema = z.object({ identity_id: idSchema });

export const secondFamilyRequestBodySchema = z.object({
  identity_id: idSchema.meta({ description: 'A box id or the claim id of a boxed identity' }),
  use_type: z.enum(['avatar', 'voice', 'video']),
  platform_description: storable(z.string().trim().min(1).max(2000)),
  expected_usage: storable(z.string().trim().min(1).max(2000)),
});

/** A money amount with at most 2 decimals (cents). */
const feeAmountSchema = z
  .number()
  .min(0)
  .max(1_000_000_000)
  .refine(hasWholeCents, { message: 'at most 2 decimals (cents)' });

/** The box owner's approval: `monthlyFee` prices a tier the owner prices at approval (enterprise). */
export const approveLicenseRequestBodySchema = z.object({
  monthlyFee: feeAmountSchema
    .optional()
    .meta({ description: 'Required for a tier without a list price (enterprise); refused otherwise' }),
});

const pricingSchema = z.object({
  monthlyFee: z
    .number()
    .nullable()
    .meta({ description: "From the owner's price list; null until the owner prices it at approval" }),
  royaltyRate: z.number(),
  currency: z.string(),
});

export const createdLicenseRequestSchema = z
  .object({
    id: z.string().meta({ example: 'req_4fT9qLx2Wm8nB3vC7kJd1s' }),
    boxId: z.string(),
    status: licenseRequestStatusSchema,
    tier: licenseTierSchema,
    submittedAt: z.iso.datetime(),
    estimatedReviewTime: z.string().meta({ example: '48-72 hours' }),
    pricing: pricingSchema,
  })
  .meta({ id: 'CreatedLicenseRequest' });

const requestLicenseSummarySchema = z.object({
  id: z.string(),
  tier: licenseTierSchema,
  monthlyFee: z.number(),
  validFrom: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
});

export const licenseRequestSchema = z
  .object({
    id: z.string(),
    status: licenseRequestStatusSchema,
    submittedAt: z.iso.datetime().optional().meta({ description: 'pending form' }),
    license: requestLicenseSummarySchema.optional().meta({ description: 'approved form' }),
    reason: z.string().optional().meta({ description: 'denied form' }),
    deniedAt: z.iso.datetime().optional().meta({ description: 'denied form' }),
  })
  .meta({ id: 'LicenseRequest' });

export const boxLicenseRequestSchema = z
  .object({
    id: z.string(),
    boxId: z.string(),
    status: licenseRequestStatusSchema,
    tier: licenseTierSchema,
    useCase: z.string(),
    estimatedUsers: z.number().int().nullable(),
    message: z.string().nullable(),
    licenseePlatformId: z.string(),
    licenseePlatformName: z.string(),
    submittedAt: z.iso.datetime(),
    pricing: pricingSchema,
    licenseId: z.string().nullable(),
    reason: z.string().nullable(),
    decidedAt: z.iso.datetime().nullable(),
    licenseLogEntry: logEntrySchema.optional().meta({
      description:
        "Once approved and logged: the license's newest decision in the transparency log (docs/spec/contracts.md §16), the license's own `logEntry`",
    }),
  })
  .meta({ id: 'BoxLicenseRequest' });

export const licenseListItemSchema = z
  .object({
    id: z.string().meta({ example: 'lic_9hQ2mXc4Tz7LpW1nB8vK3d' }),
    boxId: z.string(),
    identityName: z.string(),
    tier: licenseTierSchema,
    status: licenseStatusSchema,
    monthlyFee: z.number(),
    royaltyRate: z.number(),
    validFrom: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    autoRenew: z.boolean(),
    logEntry: logEntryField,
  })
  .meta({ id: 'LicenseListItem' });

export const licenseSchema = licenseListItemSchema
  .extend({
    currency: z.string(),
    terms: z.object({
      maxUsers: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'estimatedUsers of the request; null: none declared' }),
      contentGuidelines: z.string().nullable(),
      nsfw: z.boolean(),
      exclusivity: z.boolean(),
      territory: z.string(),
    }),
    usage: z.object({
      currentPeriod: z.string().meta({ example: '2026-11' }),
      subscribers: z.number(),
      messages: z.number(),
      revenue: z.number(),
      royaltyDue: z.number(),
    }),
    fees: z
      .object({
        basis: z.literal('prorated_calendar_month'),
        currentPeriod: z.string(),
        currentPeriodFee: z
          .number()
          .meta({ description: 'monthlyFee × the share of the month the license is active, half-up' }),
      })
      .meta({ description: 'How the monthly fee is billed (docs/adr/0012-license-fees.md)' }),
  })
  .meta({ id: 'License' });

export const renewedLicenseSchema = z.object({
  id: z.string(),
  status: licenseStatusSchema,
  previousExpiry: z.iso.datetime(),
  newExpiry: z.iso.datetime(),
  tier: licenseTierSchema,
  monthlyFee: z.number().meta({ description: 'The current list price, applied from the renewal' }),
  currency: z.string(),
  pendingUpgrade: z
    .object({
      requestId: z.string(),
      tier: licenseTierSchema,
      status: z.literal('pending'),
      pricing: pricingSchema,
    })
    .optional()
    .meta({
      description:
        "An upgrade to a tier that needs the owner's review: the license is unchanged until approved",
    }),
});

export const cancelledLicenseSchema = z.object({
  id: z.string(),
  status: licenseStatusSchema.meta({ description: 'cancelled (immediate) or active (until cancelsAt)' }),
  effectiveDate: z.enum(['immediate', 'end_of_billing_period']),
  cancelledAt: z.iso.datetime().optional(),
  cancelsAt: z.iso.datetime().optional(),
});

export const revokedLicenseSchema = z.object({
  id: z.string(),
  status: z.literal('revoked'),
  reason: z.string().nullable(),
  revokedAt: z.iso.datetime(),
});

export const licensingTermsSchema = z
  .object({
    auto_approve: z.boolean(),
    pricing: z.object({ per_interaction: z.number(), monthly_license: z.number() }).nullable().meta({
      description: 'null when the identity cannot be licensed (or the owner prices it at approval)',
    }),
    licensable: z.boolean(),
    allowed_uses: z.array(z.string()),
    blocked_uses: z.array(z.string()),
    content_guidelines: z.string(),
  })
  .meta({ id: 'LicensingTerms' });

export const secondFamilyRequestSchema = z.object({
  request_id: z.string(),
  status: licenseRequestStatusSchema,
  license_id: z.string().optional(),
  reason: z.string().optional(),
});

export const licenseCredentialSchema = z
  .object({
    credential: z.string().meta({
      description:
        'Compact JWS (EdDSA, typ license+jwt, docs/adr/0029): claims iss, sub (the license id), iat, nbf, exp, boxId, claimId, identityName, platformId, tier, allowedUses, status {idx, uri, status_list {idx, uri}}',
      example: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiIsInR5cCI6ImxpY2Vuc2Urand0In0.eyJzdWIiOiJsaWNfLi4uIn0.c2ln',
    }),
    expiresAt: z.iso
      .datetime()
      .meta({ description: "The credential's exp: the license's current period end" }),
  })
  .meta({ id: 'LicenseCredential' });

export const statusListIdParamSchema = z.object({
  id: z.coerce.number().int().min(1).max(MAX_INT32).meta({ description: 'The status list id (1)' }),
});

const publicJwkSchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

export const jwksSchema = z
  .object({
    keys: z.array(publicJwkSchema).meta({
      description:
        'The current signing key first, then each retired key until its last credential has expired',
    }),
  })
  .meta({ id: 'LicenseSigningKeys' });

const licenses = { service: 'licensing' as const, tags: ['Licenses'] };
const proofs = { service: 'licensing' as const, tags: ['Proofs'] };
const idParams = { params: idParamSchema };

export const licensingOperations = {
  listLicenses: defineOperation({
    ...licenses,
    id: 'listLicenses',
    method: 'get',
    path: '/v1/svc/licenses',
    summary: "The caller's licenses, newest first",
    request: { query: listLicensesQuerySchema },
    responses: { 200: { description: 'Licenses (list form)', schema: listOf(licenseListItemSchema) } },
  }),
  requestLicense: defineOperation({
    ...licenses,
    id: 'requestLicense',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    method: 'post',
    path: '/v1/svc/licenses/request',
    summary: 'Request a license on a box; an autoApprove tier is approved and active at once',
    request: { body: requestLicenseBodySchema },
    responses: {
      201: { description: 'Submitted (or approved at once)', schema: dataOf(createdLicenseRequestSchema) },
      404: { description: 'No such box' },
      409: {
        description:
          'Not licensable (BLOCK_ALL, TEAM, BLOCK_COMMERCIAL, own box), a tier the box does not offer (details.offeredTiers), or an active license of this tier (details.licenseId)',
      },
    },
  }),
  getLicenseRequest: defineOperation({
    ...licenses,
    id: 'getLicenseRequest',
    method: 'get',
    path: '/v1/svc/licenses/request/:id',
    summary: "One of the caller's license requests (pending, approved or denied form)",
    request: idParams,
    responses: { 200: { description: 'The request', schema: dataOf(licenseRequestSchema) } },
  }),
  getLicense: defineOperation({
    ...licenses,
    id: 'getLicense',
    method: 'get',
    path: '/v1/svc/licenses/:id',
    summary: "One of the caller's licenses (detail form with terms and the current period's usage)",
    request: idParams,
    responses: { 200: { description: 'The license', schema: dataOf(licenseSchema) } },
  }),
  renewLicense: defineOperation({
    ...licenses,
    id: 'renewLicense',
    method: 'post',
    path: '/v1/svc/licenses/:id/renew',
    summary: 'Extend an active license by `term` months; a new tier re-prices it',
    request: { ...idParams, body: renewLicenseBodySchema },
    responses: {
      200: { description: 'Renewed', schema: dataOf(renewedLicenseSchema) },
      202: {
        description:
          "A new tier the owner reviews: nothing renewed yet, the license unchanged with its pendingUpgrade (the owner's approval applies it)",
        schema: dataOf(renewedLicenseSchema),
      },
      409: { description: 'The license is not active' },
    },
  }),
  cancelLicense: defineOperation({
    ...licenses,
    id: 'cancelLicense',
    method: 'delete',
    path: '/v1/svc/licenses/:id',
    summary: 'Cancel a license now, or at the end of the current billing month',
    request: { ...idParams, body: cancelLicenseBodySchema.optional() },
    responses: {
      200: { description: 'Cancelled or scheduled', schema: dataOf(cancelledLicenseSchema) },
      409: { description: 'The license is not active, or its cancellation is already scheduled' },
    },
  }),
  revokeLicense: defineOperation({
    ...licenses,
    id: 'revokeLicense',
    errors: ['FORBIDDEN'],
    method: 'post',
    path: '/v1/svc/licenses/:id/revoke',
    summary: 'The box owner revokes a license on its box',
    request: { ...idParams, body: revokeLicenseBodySchema.optional() },
    responses: {
      200: { description: 'Revoked', schema: dataOf(revokedLicenseSchema) },
      409: { description: 'The license is not active' },
    },
  }),
  getLicenseCredential: defineOperation({
    ...licenses,
    id: 'getLicenseCredential',
    errors: ['INVALID_STATE'],
    method: 'get',
    path: '/v1/svc/licenses/:id/credential',
    summary: "An active license's newest signed credential, for its licensee and the box owner",
    description:
      'A compact JWS anyone can verify offline with the keys of `GET /.well-known/jwks.json`, and check against the status list its `status.uri` names (docs/spec/contracts.md §16, docs/adr/0029). Activation, each renewal and an upgrade issue a new one.',
    request: idParams,
    responses: {
      200: {
        description: 'The credential',
        schema: dataOf(licenseCredentialSchema),
        example: { data: exampleCredential },
      },
      409: { description: 'The license is not active (details.status: revoked, cancelled or expired)' },
    },
  }),
  getStatusList: defineOperation({
    ...proofs,
    id: 'getStatusList',
    auth: 'public',
    method: 'get',
    path: '/v1/svc/status-lists/:id',
    summary: 'A signed status list of license credentials (IETF Token Status List)',
    description:
      "The body is a JWT (`Content-Type: application/statuslist+jwt`, typ statuslist+jwt, EdDSA): `sub` its own uri, `iat`, `exp` (iat + 10 min), `ttl` 30, `status_list {bits: 1, lst}` (ZLIB-compressed, base64url). Bit 1 at a credential's `status.idx`: the license is revoked, cancelled or expired. Cacheable for 30 s; a change shows within 60 s.",
    request: { params: statusListIdParamSchema },
    responses: {
      200: {
        description: 'The status list JWT',
        mediaType: 'application/statuslist+jwt',
        schema: z.string().meta({ description: 'A compact JWS (typ statuslist+jwt)' }),
        example: exampleStatusList,
      },
      404: { description: 'No such status list' },
    },
  }),
  getJwks: defineOperation({
    ...proofs,
    id: 'getLicenseSigningKeys',
    auth: 'public',
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'The public keys that sign license credentials and status lists (JWKS)',
    description:
      'Ed25519 keys (RFC 8037), each with its `kid`. A retired key stays listed until every credential it signed has expired. Cacheable for 300 s.',
    responses: { 200: { description: 'The key set', schema: jwksSchema, example: exampleJwks } },
  }),
  listBoxLicenseRequests: defineOperation({
    ...licenses,
    tags: ['License review'],
    id: 'listBoxLicenseRequests',
    method: 'get',
    path: '/v1/svc/boxes/:id/license-requests',
    summary: 'License requests on one of the caller’s boxes (box owner only), newest first',
    request: { ...idParams, query: listBoxLicenseRequestsQuerySchema },
    responses: { 200: { description: 'Requests', schema: listOf(boxLicenseRequestSchema) } },
  }),
  approveLicenseRequest: defineOperation({
    ...licenses,
    tags: ['License review'],
    id: 'approveLicenseRequest',
    method: 'post',
    path: '/v1/svc/license-requests/:id/approve',
    summary: 'The box owner approves a pending request: the license becomes active',
    request: { ...idParams, body: approveLicenseRequestBodySchema.optional() },
    responses: {
      200: { description: 'The approved request', schema: dataOf(licenseRequestSchema) },
      409: { description: 'Already decided' },
    },
  }),
  denyLicenseRequest: defineOperation({
    ...licenses,
    tags: ['License review'],
    id: 'denyLicenseRequest',
    method: 'post',
    path: '/v1/svc/license-requests/:id/deny',
    summary: 'The box owner denies a pending request',
    request: { ...idParams, body: denyLicenseRequestBodySchema },
    responses: {
      200: { description: 'The denied request', schema: dataOf(licenseRequestSchema) },
      409: { description: 'Already decided' },
    },
  }),
  testHelperApproveLicenseRequest: defineOperation({
    ...licenses,
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperApproveLicenseRequest',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/v1/svc/test-helpers/license-requests/:id/approve',
    summary: "Approve one of the caller's own pending requests (sandbox keys only)",
    request: { ...idParams, body: approveLicenseRequestBodySchema.optional() },
    responses: { 200: { description: 'The approved request', schema: dataOf(licenseRequestSchema) } },
  }),
  testHelperDenyLicenseRequest: defineOperation({
    ...licenses,
    tags: ['Test helpers'],
    sandboxOnly: true,
    id: 'testHelperDenyLicenseRequest',
    errors: ['INVALID_STATE'],
    method: 'post',
    path: '/v1/svc/test-helpers/license-requests/:id/deny',
    summary: "Deny one of the caller's own pending requests (sandbox keys only)",
    request: { ...idParams, body: denyLicenseRequestBodySchema },
    responses: { 200: { description: 'The denied request', schema: dataOf(licenseRequestSchema) } },
  }),
  getLicensingTerms: defineOperation({
    ...licenses,
    tags: ['Second family'],
    id: 'getLicensingTerms',
    method: 'get',
    path: '/licensing/terms/:identity_id',
    summary: 'Licensing terms of a boxed identity (box id or claim id), snake_case',
    request: { params: identityIdParamSchema },
    responses: { 200: { description: 'The terms', schema: licensingTermsSchema } },
  }),
  secondFamilyRequestLicense: defineOperation({
    ...licenses,
    tags: ['Second family'],
    id: 'secondFamilyRequestLicense',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    method: 'post',
    path: '/licensing/request',
    summary: 'Request a (creator tier) license on a boxed identity, snake_case',
    request: { body: secondFamilyRequestBodySchema },
    responses: { 201: { description: 'Submitted', schema: secondFamilyRequestSchema } },
  }),
  secondFamilyGetLicenseRequest: defineOperation({
    ...licenses,
    tags: ['Second family'],
    id: 'secondFamilyGetLicenseRequest',
    method: 'get',
    path: '/licensing/request/:id',
    summary: "One of the caller's license requests, snake_case",
    request: idParams,
    responses: { 200: { description: 'The request', schema: secondFamilyRequestSchema } },
  }),
};
