import { scopeAllows, type KeyScope, type MemberRole } from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { Environment } from './api-key';
import {
  authenticateRequest,
  rateLimitedError,
  type AuthenticatedRequest,
} from './authenticate-request.use-case';
import {
  authenticateSessionRequest,
  type SessionBudget,
  type SessionCredentials,
} from './authenticate-session.use-case';
import { dispatchRequest, searchOf, type DispatchResult } from './dispatch-request.use-case';
import type { IdempotencyStore, KeyAuthenticationStore } from './ports';
import type { RateCounterStore, SessionStore } from './account-ports';
import type { MatchedRoute, RouteTable } from './route-table';
import type { UpstreamClient } from './upstream.client';

/** The second path family's prefixes (docs/spec/contracts.md §12); the reference family lives under /v1/svc. */
export const PUBLIC_PREFIXES = ['/v1/svc', '/identity', '/licensing', '/revenue', '/enforcement'];

/** True for a path of the public families (what the gateway authenticates and forwards). */
export function isPublicPath(path: string): boolean {
  return PUBLIC_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export interface PublicRequest {
  method: string;
  /** The path alone (decoded as the router sees it), for route matching. */
  path: string;
  /** Path and query as received. */
  url: string;
  authorization: string | undefined;
  /** A dashboard session's cookie and headers: used when no Authorization header is sent (ADR 0024). */
  session?: SessionCredentials;
  idempotencyKey: string | undefined;
  /** The body's bytes as received, forwarded as they are; undefined without one. */
  body: Buffer | undefined;
  requestId: string;
  /**
   * Told the operation id once the route is matched, and the platform once the key is
   * authenticated: what the request's metrics, access line and span are labelled with.
   */
  note?: (facts: { route?: string; platformId?: string }) => void;
}

/**
 * What to answer. `rateHeaders` go on the answer whatever it is, the refusal included: a client
 * sees its budget on every counted request (docs/spec/contracts.md §4).
 */
export type PublicAnswer =
  | { kind: 'not-public' }
  | { kind: 'answered'; rateHeaders: Record<string, string>; result: DispatchResult }
  | { kind: 'refused'; rateHeaders: Record<string, string>; error: unknown };

/**
 * A public request after its key was looked at: counted against its budget, or refused; with its
 * route, matched once for both steps.
 */
export type CountedRequest = { matched: MatchedRoute | null } & (
  { kind: 'counted'; auth: AuthenticatedRequest } | { kind: 'unauthenticated'; error: unknown }
);

type Deps = {
  /** The per-request pool (asynchronous commit): the key lookup, the rate count, the key binding. */
  hotPathDb: Queryable;
  store: KeyAuthenticationStore;
  clock: Clock;
  environment: Environment;
  routes: RouteTable;
  upstreams: UpstreamClient;
  idempotency: IdempotencyStore;
  sessions: SessionStore;
  counters: RateCounterStore;
  /** DASHBOARD_CALLS_PER_MINUTE / _PER_DAY: a dashboard session's own budget (#30). */
  sessionBudget?: SessionBudget | undefined;
};

/**
 * Authenticates a public request's key and counts it against the key's budget (and its route's
 * extra bucket). Runs before the body is read, so that an answer refusing the body (413, 415,
 * malformed JSON) carries the key's X-RateLimit-* too; null for a path outside the public
 * families. A request that cannot be authenticated is counted against no budget.
 */
export async function countPublicRequest(
  deps: Pick<
    Deps,
    'hotPathDb' | 'store' | 'clock' | 'environment' | 'routes' | 'sessions' | 'counters' | 'sessionBudget'
  >,
  input: Pick<PublicRequest, 'method' | 'path' | 'authorization' | 'session'>,
): Promise<CountedRequest | null> {
  if (!isPublicPath(input.path)) return null;
  const matched = deps.routes.match(input.method, input.path);
  // Without a key, a dashboard session may stand in for it (ADR 0024).
  const session = input.authorization === undefined ? input.session : undefined;
  try {
    const auth =
      session?.token !== undefined
        ? await authenticateSessionRequest(
            {
              db: deps.hotPathDb,
              sessions: deps.sessions,
              counters: deps.counters,
              clock: deps.clock,
              deploymentEnvironment: deps.environment,
            },
            { ...session, extraBucket: matched?.route.bucket },
            deps.sessionBudget,
          )
        : await authenticateRequest(
            {
              db: deps.hotPathDb,
              store: deps.store,
              clock: deps.clock,
              deploymentEnvironment: deps.environment,
            },
            { authorization: input.authorization, extraBucket: matched?.route.bucket },
          );
    return { kind: 'counted', auth, matched };
  } catch (error) {
    return { kind: 'unauthenticated', error, matched };
  }
}

/** The platform id the gateway names in the token of an anonymous call (a public operation of another service). */
export const ANONYMOUS_PLATFORM_ID = 'public';

/**
 * An operation another service serves to anyone (`auth: 'public'`: the signing keys, a status
 * list, docs/spec/contracts.md §16): matched for a GET or HEAD, whatever the path family, else null.
 */
export function matchAnonymous(
  deps: Pick<Deps, 'routes'>,
  method: string,
  path: string,
): MatchedRoute | null {
  return deps.routes.matchAnonymous(method, path);
}

/**
 * A restricted key (#32) asked for an operation its scope does not reach; or a read-only member's
 * session (ADR 0034) asked to change something.
 */
function outOfScope(scope: KeyScope, operationId: string, memberRole: MemberRole | undefined): AppError {
  const reaches =
    scope === 'read_only' ? 'GET operations only' : 'the identity checks and a check’s status only';
  if (memberRole !== undefined) {
    return new AppError('FORBIDDEN', `Your role (read-only member) cannot call ${operationId}`, {
      details: {
        memberRole: 'read_only',
        operation: operationId,
        reason: 'Only an owner or a developer can; ask an owner of your account.',
      },
    });
  }
  return new AppError('FORBIDDEN', `This key's scope (${scope}) does not allow ${operationId}`, {
    details: { scope, operation: operationId, reason: `A ${scope} key reaches ${reaches}; use a full key.` },
  });
}

/**
 * A public operation of another service, for anyone: no key, no budget (the answers are public
 * and cacheable, and the owner caches them), forwarded with a token naming no platform.
 */
export async function handleAnonymousRequest(
  deps: Deps,
  input: Pick<PublicRequest, 'method' | 'url' | 'requestId'>,
  matched: MatchedRoute,
): Promise<DispatchResult> {
  return dispatchRequest(deps, {
    caller: {
      platformId: ANONYMOUS_PLATFORM_ID,
      keyId: ANONYMOUS_PLATFORM_ID,
      environment: deps.environment,
      plan: 'sandbox',
      name: 'anyone',
      domain: null,
    },
    matched,
    method: input.method,
    url: input.url,
    search: searchOf(input.url),
    body: undefined,
    idempotencyKey: undefined,
    requestId: input.requestId,
  });
}

/**
 * Every public request: find its route, authenticate the key and count the request against the
 * key's budget (or take `counted`, when that already happened before the body was read), refuse it
 * when over, else dispatch it to the owning service. A path outside the public families is not this
 * story's (`not-public`). A request that cannot be authenticated throws: it is counted against no
 * budget, so it has no rate headers.
 */
export async function handlePublicRequest(
  deps: Deps,
  input: PublicRequest,
  counted?: CountedRequest,
): Promise<PublicAnswer> {
  if (!isPublicPath(input.path)) return { kind: 'not-public' };
  const outcome = counted ?? (await countPublicRequest(deps, input));
  if (outcome === null) return { kind: 'not-public' };
  const matched = outcome.matched;
  if (matched !== null) input.note?.({ route: matched.route.id });
  if (outcome.kind === 'unauthenticated') throw outcome.error;
  const auth = outcome.auth;
  input.note?.({ platformId: auth.caller.platformId });
  const rateHeaders = auth.rate.headers;
  if (!auth.rate.allowed) return { kind: 'refused', rateHeaders, error: rateLimitedError(auth.rate) };
  const scope = auth.caller.scope;
  if (scope !== undefined && matched !== null && !scopeAllows(scope, matched.route)) {
    return {
      kind: 'refused',
      rateHeaders,
      error: outOfScope(scope, matched.route.id, auth.caller.memberRole),
    };
  }
  try {
    const result = await dispatchRequest(deps, {
      caller: auth.caller,
      matched,
      method: input.method,
      url: input.url,
      search: searchOf(input.url),
      body: input.body,
      idempotencyKey: input.idempotencyKey,
      requestId: input.requestId,
    });
    return { kind: 'answered', rateHeaders, result };
  } catch (error) {
    return { kind: 'refused', rateHeaders, error };
  }
}
