// The contract of the licensing service (docs/adr/0018): imports only ../common, never another service's contract.
export * from './events';
export * from './operations';
export * from './snapshots';
export * from './transparency';
export {
  licenseTierSchema,
  licenseStatusSchema,
  licenseRequestStatusSchema,
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
export * from './license.schemas';
export * from './proof.schemas';
