import { systemClock } from '@svc/clock';
import {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type JsonRequest,
  type JsonResponse,
} from './http-client';
import { signInternalToken, type InternalClaims } from './internal-token';

const SERVICE_KEY_PREFIX = 'service:';
const TOKEN_TTL_SECONDS = 300;

/** The claims a service signs for itself when it calls another service (not on a platform's behalf). */
export function serviceClaims(service: string, environment: InternalClaims['environment']): InternalClaims {
  return { platformId: service, environment, keyId: `${SERVICE_KEY_PREFIX}${service}`, plan: 'enterprise' };
}

/** True when the internal token was signed by a service for itself, never minted for a platform's key. */
export function isServiceCaller(claims: InternalClaims): boolean {
  return claims.keyId.startsWith(SERVICE_KEY_PREFIX);
}

export interface ServiceClientOptions extends HttpClientOptions {
  /** The calling service's name, e.g. 'licensing'. */
  service: string;
  internalJwtSecret: string;
  environment: InternalClaims['environment'];
}

/** An HTTP client (timeout, breaker, metrics) that signs the calling service's own internal token. */
export interface ServiceClient {
  json<T>(req: JsonRequest): Promise<JsonResponse<T>>;
  isOpen(): boolean;
  close(): Promise<void>;
}

/** A client of another service, authenticated as `options.service` (tokens renewed before they expire). */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const http: HttpClient = createHttpClient(options);
  let token: { value: string; renewAt: number } | undefined;
  const bearer = (): string => {
    // Internal tokens are checked against real time by the callee, never a sandbox clock.
    const now = systemClock.now().getTime();
    if (token === undefined || token.renewAt <= now) {
      const value = signInternalToken(
        options.internalJwtSecret,
        serviceClaims(options.service, options.environment),
        {
          ttlSeconds: TOKEN_TTL_SECONDS,
        },
      );
      token = { value, renewAt: now + (TOKEN_TTL_SECONDS - 60) * 1000 };
    }
    return token.value;
  };
  return {
    json: (req) => http.json({ ...req, headers: { ...req.headers, authorization: `Bearer ${bearer()}` } }),
    isOpen: () => http.isOpen(),
    close: () => http.close(),
  };
}
