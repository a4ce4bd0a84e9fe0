import { ERROR_CODES, type ErrorCode } from '@svc/errors';
import { scopesAllowing } from './gateway/key-scopes';
import type { Operation } from './common/operation';
import type { JsonObject } from './openapi-schema-components';

// What the document says of an operation beyond its schemas: error codes, headers, auth and the gateway's part.

/** What each code means, in the words of docs/spec/contracts.md §2 (the document's error descriptions). */
const CODE_MEANINGS: Record<ErrorCode, string> = {
  UNAUTHORIZED: 'missing, malformed or unknown key',
  KEY_REVOKED: 'the key was revoked',
  KEY_EXPIRED: 'the key is past its 24 h overlap after a rotation',
  WRONG_ENVIRONMENT:
    'a key of the other environment (svc_live_ against sandbox, or svc_test_ against production)',
  FORBIDDEN:
    'the key is valid but may not do this (its scope, `read_only` or `check_only`, does not allow the operation); with a dashboard session instead of a key: a POST, PATCH or DELETE without the session’s `X-CSRF-Token` or from another origin, the operator’s session on the public API, or another account’s on the operator API',
  NOT_FOUND: 'no such resource, or it belongs to another platform',
  VALIDATION_ERROR: 'the body, query, path or a header is invalid; `details.fields` names each bad field',
  INVALID_NAME:
    'a name is empty, only punctuation or whitespace, over 200 characters, or has control characters',
  BATCH_TOO_LARGE: 'more than 100 identities in a batch',
  INVALID_IMAGE_URL:
    'the image URL is not http(s), cannot be fetched, is not an image, or is refused by the outbound-fetch guard',
  IMAGE_TOO_LARGE: 'the image is over 10 MB',
  INVALID_STATE: 'not allowed from the current state',
  IDEMPOTENCY_CONFLICT: 'this Idempotency-Key was used with another request',
  RATE_LIMITED:
    'a rate limit of the key is spent; `details`: `limit`, `remaining` (0), `resetAt`, `retryAfter`. Retry after `Retry-After` seconds',
  SERVICE_UNAVAILABLE: 'a service or its database is unavailable for now; retry after `Retry-After` seconds',
  INTERNAL: 'never expected; `details` carries the request id, never a stack trace',
};

/** VALIDATION_ERROR under another status than 400 means something narrower. */
const VALIDATION_BY_STATUS: Partial<Record<number, string>> = {
  413: 'the body is over 1 MB',
  415: 'the body is not UTF-8 JSON: another Content-Type or charset, or a Content-Encoding',
  431: 'the request headers are over 16 KB',
};

const KEY_CODES: ErrorCode[] = [
  'UNAUTHORIZED',
  'KEY_REVOKED',
  'KEY_EXPIRED',
  'WRONG_ENVIRONMENT',
  'RATE_LIMITED',
];

/** For an error response the operation declares by status alone: the code that status stands for. */
const CODE_OF_DECLARED_STATUS: Partial<Record<number, ErrorCode>> = {
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'INVALID_STATE',
  413: 'IMAGE_TOO_LARGE',
  422: 'INVALID_IMAGE_URL',
  429: 'RATE_LIMITED',
};

const RATE_BUCKETS: Record<string, string> = {
  'usage-report': 'usage reports, 100 per minute per key',
  'webhook-test': 'webhook tests, 10 per hour per key',
};

const WRITE_METHODS = new Set(['post', 'patch', 'put', 'delete']);

export function authOf(op: Operation): 'key' | 'operator' | 'public' | 'session' {
  return op.auth ?? (op.path.startsWith('/admin') ? 'operator' : 'key');
}

/** True when the gateway honours an Idempotency-Key on this operation (writes with an API key). */
export function takesIdempotencyKey(op: Operation): boolean {
  return authOf(op) === 'key' && WRITE_METHODS.has(op.method);
}

/**
 * Every error answer an operation can give, by HTTP status: those of its kind (authentication,
 * rate limits, validation of what it accepts, NOT_FOUND for a path id, IDEMPOTENCY_CONFLICT for a
 * write, FORBIDDEN for a sandbox helper, 500, 503) and those it declares (`errors`, or an error
 * status in `responses`).
 */
export function errorCodesOf(op: Operation): Map<number, ErrorCode[]> {
  const auth = authOf(op);
  // Any request can be malformed or carry a bad query value, path segment or header (NUL bytes, Idempotency-Key).
  const codes = new Set<ErrorCode>(['VALIDATION_ERROR', 'INTERNAL']);
  if (auth !== 'public') codes.add('SERVICE_UNAVAILABLE');
  if (auth === 'key') for (const code of KEY_CODES) codes.add(code);
  if (auth === 'operator') codes.add('UNAUTHORIZED');
  // A session that ended, or a state change without its CSRF token or from another origin. A
  // session also stands in for a key (a creator's or platform's) and for ADMIN_TOKEN (the
  // operator's), so those operations answer a session's 403s too: the operator's session on the
  // public API, another account's on the operator API.
  if (auth === 'session') for (const code of ['UNAUTHORIZED', 'FORBIDDEN'] as const) codes.add(code);
  if (auth === 'key' || auth === 'operator') codes.add('FORBIDDEN');
  if (/:[A-Za-z_]/.test(op.path)) codes.add('NOT_FOUND');
  if (takesIdempotencyKey(op)) codes.add('IDEMPOTENCY_CONFLICT');
  if (op.sandboxOnly === true) codes.add('FORBIDDEN');
  for (const status of Object.keys(op.responses).map(Number)) {
    const code = CODE_OF_DECLARED_STATUS[status];
    if (code !== undefined) codes.add(code);
    if (status === 400) codes.add('VALIDATION_ERROR');
  }
  for (const code of op.errors ?? []) codes.add(code);

  const byStatus = new Map<number, ErrorCode[]>();
  const add = (status: number, code: ErrorCode) =>
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    if (codes.has(code)) add(ERROR_CODES[code].status, code);
  }
  // Request headers over node's 16 KB.
  add(431, 'VALIDATION_ERROR');
  if (op.request?.body !== undefined) {
    // A body over 1 MB, and one that is not UTF-8 JSON (another media type, charset or encoding).
    if (!(byStatus.get(413) ?? []).includes('VALIDATION_ERROR')) add(413, 'VALIDATION_ERROR');
    add(415, 'VALIDATION_ERROR');
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

export const HEADERS = {
  XRequestId: {
    description:
      'The request id: echoed from the request’s X-Request-Id, or generated. Quote it when reporting a problem.',
    schema: { type: 'string' },
  },
  XRateLimitLimit: {
    description: 'Requests per minute of the key’s plan',
    schema: { type: 'integer' },
  },
  XRateLimitRemaining: {
    description: 'Requests left in the current minute (0 on a 429)',
    schema: { type: 'integer', minimum: 0 },
  },
  XRateLimitReset: {
    description: 'When the current window ends, Unix seconds',
    schema: { type: 'integer' },
  },
  RetryAfter: {
    description: 'Seconds to wait before sending the request again',
    schema: { type: 'integer', minimum: 1 },
  },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

const HEADER_NAMES: Record<keyof typeof HEADERS, string> = {
  XRequestId: 'X-Request-Id',
  XRateLimitLimit: 'X-RateLimit-Limit',
  XRateLimitRemaining: 'X-RateLimit-Remaining',
  XRateLimitReset: 'X-RateLimit-Reset',
  RetryAfter: 'Retry-After',
  IdempotentReplayed: 'Idempotent-Replayed',
};

function headerRefs(names: (keyof typeof HEADERS)[]): JsonObject {
  const out: JsonObject = {};
  for (const name of names) out[HEADER_NAMES[name]] = { $ref: `#/components/headers/${name}` };
  return out;
}

const RATE_HEADERS: (keyof typeof HEADERS)[] = ['XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset'];

/** The headers of an answer of `status` to `op`: X-RateLimit-* on every answer to a request with a valid key. */
export function responseHeaders(op: Operation, status: number, codes: ErrorCode[] = []): JsonObject {
  const names: (keyof typeof HEADERS)[] = ['XRequestId'];
  const keyed = authOf(op) === 'key' && status !== 401;
  if (keyed) names.push(...RATE_HEADERS);
  if (codes.includes('RATE_LIMITED') || codes.includes('SERVICE_UNAVAILABLE')) names.push('RetryAfter');
  if (status < 300 && takesIdempotencyKey(op)) names.push('IdempotentReplayed');
  return headerRefs(names);
}

export function errorResponse(op: Operation, status: number, codes: ErrorCode[]): JsonObject {
  const declared = op.responses[status]?.description;
  const meaning = (code: ErrorCode) =>
    (code === 'VALIDATION_ERROR' ? VALIDATION_BY_STATUS[status] : undefined) ?? CODE_MEANINGS[code];
  const lines = codes.map((code) => `- \`${code}\`: ${meaning(code)}`);
  const description = [declared, ...lines].filter((line) => line !== undefined).join('\n');
  return {
    description,
    headers: responseHeaders(op, status, codes),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            {
              type: 'object',
              properties: {
                error: { type: 'object', properties: { code: { type: 'string', enum: codes } } },
              },
            },
          ],
        },
      },
    },
  };
}

/** The operation's description: its own, then what the gateway does with it. */
export function operationDescription(op: Operation): string {
  const auth = authOf(op);
  const parts = [op.description ?? `${op.summary}.`];
  if (auth === 'operator') {
    parts.push('Operator API: `Authorization: Bearer <ADMIN_TOKEN>`; not rate-limited, no Idempotency-Key.');
  } else if (auth === 'key') {
    parts.push(
      op.sandboxOnly === true
        ? 'Sandbox keys only (`svc_test_…`): a live key gets 403 FORBIDDEN.'
        : 'Any API key (`Authorization: Bearer svc_test_…` or `svc_live_…`).',
    );
    const scopes = scopesAllowing(op).map((scope) => `\`${scope}\``);
    parts.push(
      `Key scopes allowed: ${scopes.join(', ')}; a key of another scope gets 403 FORBIDDEN (and the request counts).`,
    );
    const bucket = op.bucket === undefined ? '' : `, and against ${RATE_BUCKETS[op.bucket] ?? op.bucket}`;
    parts.push(`Counts against the key’s per-minute and per-day limits${bucket}.`);
    if (takesIdempotencyKey(op)) {
      parts.push(
        'Send an `Idempotency-Key` to make retries safe: a repeat gets the first answer (`Idempotent-Replayed: true`), the same key with another body 409 IDEMPOTENCY_CONFLICT.',
      );
    }
  }
  return parts.join(' ');
}

/**
 * Who may call an operation of each kind: a key or, in its place, a creator's or platform's
 * dashboard session; ADMIN_TOKEN or, in its place, the operator's session (ADR 0024).
 */
export const SECURITY: Record<ReturnType<typeof authOf>, JsonObject[]> = {
  public: [],
  key: [{ apiKey: [] }, { session: [] }],
  operator: [{ adminToken: [] }, { session: [] }],
  session: [{ session: [] }],
};
