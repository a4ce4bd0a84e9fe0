export {
  signInternalToken,
  verifyInternalToken,
  INTERNAL_TOKEN_ISSUER,
  INTERNAL_TOKEN_AUDIENCE,
  OPERATOR_PLATFORM_ID,
  type InternalClaims,
} from './internal-token';
export {
  createService,
  createServiceRegistry,
  type CreateServiceOptions,
  type Listening,
  type Service,
  type TrustProxy,
  type FastHandler,
} from './create-service';
export { exchangeKit, pathOf, type Exchange, type ExchangeKit } from './exchange';
export { errorAnswerOf, tooLargeMessageOf, type ErrorAnswer } from './error.middleware';
export {
  evaluateReadiness,
  type ReadinessCheck,
  type ReadinessOutcome,
  type ReadinessReport,
} from './health.routes';
export {
  authOf,
  describeRequest,
  requestFactsOf,
  requestIdOf,
  REQUEST_ID_HEADER,
  type RequestFacts,
} from './request-context.middleware';
export { routeNamer, UNMATCHED_ROUTE, type NamedOperation, type RouteNamer } from './route-names';
export { parseBody, parseQuery, parseParams } from './parse-request';
export { jsonBody, checkJsonDepth, bodyPolicyErrorOf, hasBody, MAX_JSON_DEPTH } from './json-body.middleware';
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
  idempotency,
  requestFingerprint,
  isReplayable,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_TTL_MS,
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENT_REPLAYED_HEADER,
  provisionalAnswer,
  type IdempotencyOptions,
} from './idempotency.middleware';
export { idempotencyMigrations, IdempotencyKeyStore, type StoredAnswer } from './idempotency.store';
export {
  createServiceClient,
  isServiceCaller,
  serviceClaims,
  type ServiceClient,
  type ServiceClientOptions,
} from './service-client';
export { respond, type DeclaredStatus, type RespondableOperation, type ResponseBody } from './respond';
