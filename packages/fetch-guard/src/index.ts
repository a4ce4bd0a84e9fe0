export {
  guardedFetch,
  checkUrl,
  closeGuardedAgents,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
} from './guarded-fetch';
export type { GuardedFetchOptions, GuardedResponse } from './guarded-fetch';
export { FetchGuardError, isFetchGuardError, type FetchGuardReason } from './fetch-guard-error';
export { blockedReason, isPublicAddress, parseIPv6 } from './address-policy';
export { httpUrlProblem } from './url-problem';
