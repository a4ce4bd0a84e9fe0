import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@svc/errors';
import { randomBase62 } from '@svc/ids';
import { withRequestContext } from '@svc/logger';
import type { InternalClaims } from './internal-token';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Whether a caller's X-Request-Id may be kept: at most 128 of [A-Za-z0-9._-]. */
export function saneRequestId(given: string): boolean {
  return SANE_REQUEST_ID.test(given);
}

const CONTEXT = Symbol('service-kit.request-context');
const CLAIMS = Symbol('service-kit.internal-claims');
const FACTS = Symbol('service-kit.request-facts');

interface RequestContext {
  requestId: string;
  platformId?: string;
}

// Symbol-keyed slots instead of augmenting express.Request globally: the state stays private to this
// package and readable only through requestIdOf / authOf.
interface KitRequest extends Request {
  [CONTEXT]?: RequestContext;
  [CLAIMS]?: InternalClaims;
  [FACTS]?: RequestFacts;
}

/**
 * What the metrics and the access log say about a request that express's routing cannot tell:
 * the operation a catch-all handler served (the gateway's proxy), the platform it authenticated,
 * the closed error code it answered.
 */
export interface RequestFacts {
  /** The operation id (`createClaim`), or another bounded name of what was served. */
  route?: string;
  platformId?: string;
  errorCode?: string;
  /** The trace of the request's span (tracing on). */
  traceId?: string;
}

/** Takes the caller's X-Request-Id when it is sane (≤128 of [A-Za-z0-9._-]), else a new one; echoes it and runs the rest of the request in a logging context carrying it. */
export function requestContext(isStopping: () => boolean): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && saneRequestId(given) ? given : randomBase62(20);
    const ctx: RequestContext = { requestId };
    (req as KitRequest)[CONTEXT] = ctx;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    // A request arriving while draining must not keep its connection alive past the stop.
    if (isStopping()) res.setHeader('Connection', 'close');
    withRequestContext(ctx, next);
  };
}

/** Puts verified internal claims on the request and the platform id into the logging context. */
export function attachClaims(req: Request, claims: InternalClaims, next: NextFunction): void {
  const kitReq = req as KitRequest;
  kitReq[CLAIMS] = claims;
  const requestId = kitReq[CONTEXT]?.requestId ?? randomBase62(20);
  const ctx: RequestContext = { requestId, platformId: claims.platformId };
  kitReq[CONTEXT] = ctx;
  withRequestContext(ctx, next);
}

/** Records facts about this request for its metrics and access-log line (later calls add to earlier ones). */
export function describeRequest(req: Request, facts: RequestFacts): void {
  const kitReq = req as KitRequest;
  kitReq[FACTS] = { ...kitReq[FACTS], ...facts };
}

/** What `describeRequest` recorded, with the platform of the verified internal token when none was named. */
export function requestFactsOf(req: Request): RequestFacts {
  const kitReq = req as KitRequest;
  const facts = kitReq[FACTS] ?? {};
  const platformId = facts.platformId ?? kitReq[CLAIMS]?.platformId;
  return platformId === undefined ? facts : { ...facts, platformId };
}

/** The request id of this request (the echoed X-Request-Id). */
export function requestIdOf(req: Request): string | undefined {
  return (req as KitRequest)[CONTEXT]?.requestId;
}

/** The verified internal claims of this request; throws AppError UNAUTHORIZED when there are none. */
export function authOf(req: Request): InternalClaims {
  const claims = (req as KitRequest)[CLAIMS];
  if (claims === undefined) throw new AppError('UNAUTHORIZED', 'No internal token on this request');
  return claims;
}
