export {
  signInternalToken,
  verifyInternalToken,
  INTERNAL_TOKEN_ISSUER,
  INTERNAL_TOKEN_AUDIENCE,
  OPERATOR_PLATFORM_ID,
  type InternalClaims,
} from './internal-token';
export { createService, type CreateServiceOptions, type Service } from './create-service';
export type { ReadinessCheck } from './health.routes';
export { authOf, requestIdOf, REQUEST_ID_HEADER } from './request-context.middleware';
export { parseBody, parseQuery, parseParams } from './parse-request';
export { runUntilSignalled, stopInOrder, type Stoppable, type ShutdownOptions } from './graceful-shutdown';
export {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpRequest,
  type HttpResponse,
  type JsonRequest,
  type JsonResponse,
} from './http-client';
export { counterOn, histogramOn, gaugeOn } from './metric-registration';
export {
  createServiceClient,
  isServiceCaller,
  serviceClaims,
  type ServiceClient,
  type ServiceClientOptions,
} from './service-client';
