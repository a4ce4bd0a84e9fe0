import { AppError } from '@svc/errors';
import type { HttpRequest, HttpResponse } from './http-client.types';

// How the HTTP client tells a target that is down from a caller's mistake (createHttpClient).

// 502, 503 and 504 say the target (or what is behind it) is down; they trip the breaker. A 500 is
// a bug in one request, and a 4xx is the caller's fault: neither says the target is down.
export const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export type FailureKind = 'timeout' | 'unreachable' | 'error';

/** A 502/503/504 answer: thrown inside the breaker so that it counts as a failure, then handed back to the caller. */
export class UnavailableAnswer extends Error {
  constructor(readonly response: HttpResponse) {
    super(`Downstream answered ${response.status}`);
  }
}

/** The network let the call down (refused, timed out, reset). */
export class CallFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly timeoutMs: number,
    cause: unknown,
    /** One tenant's timeout while others are answered: not counted against the shared circuit. */
    readonly tenantOnly = false,
  ) {
    super(kind, { cause });
  }
}

/** A tenant's own circuit: its recent timeouts and, once they reach the threshold, until when it is open. */

const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A read, or a write its service deduplicates by its Idempotency-Key. */
export function safeToRepeat(req: HttpRequest): boolean {
  if (REPEATABLE_METHODS.has(req.method.toUpperCase())) return true;
  return Object.keys(req.headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');
}

export function failureMessage(target: string, failure: CallFailure): string {
  switch (failure.kind) {
    case 'timeout':
      return `${target} did not answer within ${failure.timeoutMs} ms`;
    case 'unreachable':
      return `${target} is unreachable`;
    case 'error':
      return `${target} is unavailable (connection failed)`;
  }
}

export function failureKind(err: unknown): FailureKind {
  const code = errorCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return 'unreachable';
  return 'error';
}

/** An error that is the caller's doing (a bad header, an unsupported method), not the target's. */
export function isCallerMistake(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED';
}

export function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

export function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return true;
  return false;
}

export function parseJson<T>(target: string, status: number, body: Buffer): T {
  // An empty answer (204) has no JSON; the caller reads the status.
  if (body.length === 0) return undefined as T;
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch (err) {
    // A 502, 503 or 504 that is not JSON is a proxy's page between us and the target (a load
    // balancer whose replica died mid-request, an ingress): the target is unavailable, not buggy.
    if (UNAVAILABLE_STATUSES.has(status)) {
      throw new AppError('SERVICE_UNAVAILABLE', `${target} is unavailable (answered ${status})`, {
        headers: { 'Retry-After': '1' },
        details: { reason: 'unavailable_answer', status },
        cause: err,
      });
    }
    // A service of ours answering something other than JSON is a bug, not an outage: 500, logged.
    throw new AppError('INTERNAL', `${target} answered with a body that is not JSON`, { cause: err });
  }
}
