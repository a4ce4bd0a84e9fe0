import { z } from 'zod';
import { exampleCredential, exampleJwks, exampleStatusList } from './proof-examples';
import { dataOf, idParamSchema, listOf } from '../common/schemas';
import { defineOperation } from '../common/operation';
import {
  requestLicenseBodySchema,
  listLicensesQuerySchema,
  listBoxLicenseRequestsQuerySchema,
  renewLicenseBodySchema,
  cancelLicenseBodySchema,
  revokeLicenseBodySchema,
  denyLicenseRequestBodySchema,
  identityIdParamSchema,
  secondFamilyRequestBodySchema,
  approveLicenseRequestBodySchema,
  createdLicenseRequestSchema,
  licenseRequestSchema,
  boxLicenseRequestSchema,
} from './license-request.schemas';
import {
  licenseListItemSchema,
  licenseSchema,
  renewedLicenseSchema,
  cancelledLicenseSchema,
  revokedLicenseSchema,
  licensingTermsSchema,
  secondFamilyRequestSchema,
} from './license.schemas';
import { licenseCredentialSchema, statusListIdParamSchema, jwksSchema } from './proof.schemas';

// Licensing's public operations (docs/spec/service-interface.md, Endpoints: Licenses; docs/spec/contracts.md §8,
// §9, §12). The same schemas validate requests in services/licensing and build the OpenAPI document.

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
