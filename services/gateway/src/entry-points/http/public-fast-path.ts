import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { AppError } from '@svc/errors';
import { pathOf, type Exchange, type ExchangeKit, type FastHandler } from '@svc/service-kit';
import type { GatewayContext } from '../../domain/gateway-context';
import {
  countPublicRequest,
  handlePublicRequest,
  isPublicPath,
  matchAnonymous,
  type CountedRequest,
} from '../../domain/handle-public-request.use-case';
import type { DispatchResult } from '../../domain/dispatch-request.use-case';
import { OPENAPI_PATH } from './public.routes';
import { apiHeaderSets } from './security-headers';

const SLASH = 0x2f;

/**
 * The public API's own path (ADR 0041): a request with an API key to a public path is served
 * here, without express, in one pass. The key is looked up and the request counted before the
 * body is read (so 413 and 415 carry X-RateLimit-*), the route matched once, the body read once
 * and forwarded as the bytes received (its Idempotency-Key bound to a fingerprint of those bytes),
 * and the answer's bytes passed back. The request id, span, metrics, access line and error answers
 * are the exchange kit's, the same as express's middleware give every other request.
 *
 * Everything else is left to the express app, untouched: a dashboard session's calls (cookie,
 * CSRF), the OpenAPI document and other services' operations for anyone, requests without a key.
 */
export function publicFastPath(ctx: GatewayContext) {
  const security = apiHeaderSets();
  return (kit: ExchangeKit, isSecure: (req: IncomingMessage) => boolean): FastHandler =>
    (req, res) => {
      const url = req.url;
      const authorization = req.headers.authorization;
      if (url === undefined || url.charCodeAt(0) !== SLASH || authorization === undefined) return false;
      const path = pathOf(url);
      if (!isPublicPath(path)) return false;
      const method = req.method ?? 'GET';
      if ((path === OPENAPI_PATH && method === 'GET') || matchAnonymous(ctx, method, path) !== null) {
        return false;
      }
      const exchange = kit.begin(req, res);
      const headers = isSecure(req) ? security.secure : security.plain;
      exchange.run(() => {
        serve(ctx, kit, exchange, req, { method, path, url, authorization, headers }).catch((err: unknown) =>
          exchange.fail(err, headers),
        );
      });
      return true;
    };
}

interface PublicCall {
  method: string;
  path: string;
  url: string;
  authorization: string;
  /** The security headers of every answer. */
  headers: Record<string, string>;
}

async function serve(
  ctx: GatewayContext,
  kit: ExchangeKit,
  exchange: Exchange,
  req: IncomingMessage,
  call: PublicCall,
): Promise<void> {
  const started = performance.now();
  const counted = await countPublicRequest(ctx, {
    method: call.method,
    path: call.path,
    authorization: call.authorization,
  });
  if (counted === null) throw new AppError('NOT_FOUND', `No route for ${call.method} ${call.path}`);
  let headers = call.headers;
  if (counted.kind === 'counted') {
    headers = { ...headers, ...counted.auth.rate.headers };
    noteWhenOver(ctx, exchange, counted, call, started);
  }
  let body: Buffer | undefined;
  try {
    // A request refused for its key (401) or its budget (429) is answered without reading its body.
    if (counted.kind === 'counted' && counted.auth.rate.allowed) body = await kit.readBody(req);
  } catch (err) {
    // A refused body is answered here, counted and with the key's budget on it.
    if (counted.matched !== null) exchange.facts.route = counted.matched.route.id;
    exchange.fail(err, headers);
    return;
  }
  const answer = await handlePublicRequest(
    ctx,
    {
      method: call.method,
      path: call.path,
      url: call.url,
      authorization: call.authorization,
      idempotencyKey: header(req, 'idempotency-key'),
      body,
      requestId: exchange.requestId,
      note: (facts) => Object.assign(exchange.facts, facts),
    },
    counted,
  );
  if (answer.kind === 'not-public')
    throw new AppError('NOT_FOUND', `No route for ${call.method} ${call.path}`);
  if (answer.kind === 'refused') {
    exchange.fail(answer.error, { ...call.headers, ...answer.rateHeaders });
    return;
  }
  sendResult(exchange, req, call.headers, answer.rateHeaders, answer.result);
}

/** The answer of the owning service, as express's `res.send` would give it (freshness, 204 and 304 without a body). */
function sendResult(
  exchange: Exchange,
  req: IncomingMessage,
  security: Record<string, string>,
  rateHeaders: Record<string, string>,
  result: DispatchResult,
): void {
  let status = result.status;
  const etag = result.headers.etag;
  if (etag !== undefined && isFresh(req, status, etag)) status = 304;
  // The security and rate headers are the gateway's, the rest the service's (lower case): no name twice.
  if (status === 204 || status === 304) {
    const { 'content-type': _type, ...rest } = result.headers;
    exchange.send(status, [security, rateHeaders, rest], '');
    return;
  }
  exchange.send(status, [security, rateHeaders, result.headers], result.body);
}

/** Whether a GET or HEAD may be answered 304: its If-None-Match names the answer's ETag (as express's `req.fresh`). */
function isFresh(req: IncomingMessage, status: number, etag: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if ((status < 200 || status >= 300) && status !== 304) return false;
  const noneMatch = header(req, 'if-none-match');
  if (noneMatch === undefined) return false;
  if (/(?:^|,)\s*no-cache\s*(?:,|$)/.test(header(req, 'cache-control') ?? '')) return false;
  if (noneMatch.trim() === '*') return true;
  const strong = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return noneMatch.split(',').some((tag) => strong(tag.trim()) === strong(etag));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A key's request goes to its platform's request log once over (#32): one push into this replica's
 * buffer, no I/O; status 499 when the client gave up first.
 */
function noteWhenOver(
  ctx: GatewayContext,
  exchange: Exchange,
  counted: Extract<CountedRequest, { kind: 'counted' }>,
  call: PublicCall,
  started: number,
): void {
  const { caller } = counted.auth;
  exchange.whenOver((status) => {
    ctx.requestLogBuffer.note({
      platformId: caller.platformId,
      keyId: caller.keyId,
      at: ctx.clock.now(),
      method: call.method,
      path: call.path,
      operation: counted.matched?.route.id ?? null,
      status,
      latencyMs: Math.round(performance.now() - started),
      requestId: exchange.requestId,
    });
  });
}
