// The contract of the detection service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './events';
export * from './operations';
export {
  MAX_BATCH_IDENTITIES,
  actionSchema,
  likenessSchema,
  otherMatchSchema,
  detectionSchema,
  matchedIdentitySchema,
  identityCheckBodySchema,
  identityCheckResultSchema,
  identityBatchBodySchema,
  itemErrorSchema,
  identityBatchResultSchema,
} from './identity-check.schemas';
export * from './second-family.schemas';
export * from './internal-calls.schemas';
