// @svc/sdk: the typed client of the identity protection and licensing API (README.md).
export type { paths, components, operations } from './schema.generated';
export { createSvcClient, unwrap, paginate } from './client';
export type {
  SvcClient,
  SvcClientOptions,
  CallResult,
  DataOf,
  ListPath,
  ListItem,
  Method,
  RequestBody,
  ResponseBody,
} from './client';
export { retryingFetch } from './transport';
export type { RetryOptions, TransportOptions } from './transport';
export {
  ApiError,
  ERROR_CODES,
  SvcError,
  UnexpectedResponseError,
  errorOf,
  isApiError,
  isErrorCode,
  retryAfterMs,
} from './errors';
export type { ErrorBody, ErrorCode, ValidationField } from './errors';
export { verifyWebhook, webhookEventType, WebhookVerificationError } from './webhooks';
export type { WebhookDelivery, WebhookEventType } from './webhooks';
export {
  checkLicenseCredential,
  createKeyCache,
  CredentialVerificationError,
  verifyLicenseCredential,
  verifyStatusList,
} from './credentials';
export type {
  CredentialFailureReason,
  JWKS,
  KeyCache,
  KeyCacheOptions,
  LicenseCredentialClaims,
  VerifiedCredential,
  VerifiedStatusList,
  VerifyCredentialOptions,
} from './credentials';
export { rateLimitOf } from './rate-limit';
export type { RateLimit } from './rate-limit';

import type { components } from './schema.generated';
/** The document's named schemas: `Schemas['Claim']`. */
export type Schemas = components['schemas'];
export {
  checkTransparencyLog,
  fromBase64,
  leafHashOf,
  toBase64,
  treeHeadPayload,
  verifyConsistencyProof,
  verifyInclusionProof,
  verifyTreeHead,
} from './transparency';
export type { MonitorReport, TransparencyMonitorOptions, TreeHead } from './transparency';
