import { ERROR_CODES, type ErrorCode } from '@svc/errors';
import { sample } from 'openapi-sampler';
import { z } from 'zod';
import { errorBodySchema } from './common/schemas';
import { scopesAllowing } from './gateway/key-scopes';
import type { Operation } from './common/operation';
import { publicEventBodySchemas, PUBLIC_EVENT_SUMMARIES } from './webhook-dispatcher/public-events';
import { BOXING_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from './webhook-dispatcher/event-types';

type JsonObject = Record<string, unknown>;

/**
 * Turns zod schemas into OpenAPI schema objects. zod puts a schema with an `id` (`.meta({id})`) in
 * the `$defs` of the one schema it converts and refers to it as `#/$defs/<id>`; inside an OpenAPI
 * document `#` is the document, so those references would dangle. They are moved to
 * `components.schemas` instead. zod's input and output forms of one id can differ (defaults,
 * `additionalProperties`): the output form keeps the name, a different input form is `<id>Input`.
 */
class SchemaComponents {
  private readonly defs = new Map<string, { input?: JsonObject; output?: JsonObject }>();
  private readonly refs: { node: JsonObject; id: string; io: 'input' | 'output' }[] = [];

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
    }) as JsonObject;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, JsonObject>;
    delete json.$defs;
    for (const [id, def] of Object.entries(defs)) {
      this.collectRefs(def, io);
      const forms = this.defs.get(id) ?? {};
      forms[io] ??= def;
      this.defs.set(id, forms);
    }
    this.collectRefs(json, io);
    return json;
  }

  /** Points every collected reference at its component and returns the components. */
  finish(): Record<string, JsonObject> {
    const schemas: Record<string, JsonObject> = {};
    const nameOf = new Map<string, string>();
    for (const [id, forms] of this.defs) {
      const output = forms.output ?? forms.input;
      if (output !== undefined) schemas[id] = output;
      nameOf.set(`output:${id}`, id);
      const sameInput = forms.input === undefined || JSON.stringify(forms.input) === JSON.stringify(output);
      if (!sameInput && forms.input !== undefined) schemas[`${id}Input`] = forms.input;
      nameOf.set(`input:${id}`, sameInput ? id : `${id}Input`);
    }
    for (const { node, id, io } of this.refs)
      node.$ref = `#/components/schemas/${nameOf.get(`${io}:${id}`) ?? id}`;
    return schemas;
  }

  private collectRefs(value: unknown, io: 'input' | 'output'): void {
    if (Array.isArray(value)) {
      for (const item of value) this.collectRefs(item, io);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as JsonObject;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/')) {
      this.refs.push({ node, id: node.$ref.slice('#/$defs/'.length), io });
    }
    for (const inner of Object.values(node)) this.collectRefs(inner, io);
  }
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function parameters(op: Operation, components: SchemaComponents): JsonObject[] {
  const out: JsonObject[] = [];
  for (const location of ['params', 'query'] as const) {
    const schema = op.request?.[location];
    if (schema === undefined) continue;
    const json = components.convert(schema, 'input');
    const properties = (json.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(properties)) {
      out.push({
        name,
        in: location === 'params' ? 'path' : 'query',
        required: location === 'params' ? true : required.has(name),
        schema: prop,
      });
    }
  }
  return out;
}

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

function authOf(op: Operation): 'key' | 'operator' | 'public' | 'session' {
  return op.auth ?? (op.path.startsWith('/admin') ? 'operator' : 'key');
}

/** True when the gateway honours an Idempotency-Key on this operation (writes with an API key). */
function takesIdempotencyKey(op: Operation): boolean {
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

const HEADERS = {
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
function responseHeaders(op: Operation, status: number, codes: ErrorCode[] = []): JsonObject {
  const names: (keyof typeof HEADERS)[] = ['XRequestId'];
  const keyed = authOf(op) === 'key' && status !== 401;
  if (keyed) names.push(...RATE_HEADERS);
  if (codes.includes('RATE_LIMITED') || codes.includes('SERVICE_UNAVAILABLE')) names.push('RetryAfter');
  if (status < 300 && takesIdempotencyKey(op)) names.push('IdempotentReplayed');
  return headerRefs(names);
}

function errorResponse(op: Operation, status: number, codes: ErrorCode[]): JsonObject {
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
function operationDescription(op: Operation): string {
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
const SECURITY: Record<ReturnType<typeof authOf>, JsonObject[]> = {
  public: [],
  key: [{ apiKey: [] }, { session: [] }],
  operator: [{ adminToken: [] }, { session: [] }],
  session: [{ session: [] }],
};

/** Builds the OpenAPI 3.1 document from the declared operations' zod schemas and the public event schemas. */
export function buildOpenApiDocument(
  operations: readonly Operation[],
  info: { version: string },
): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const components = new SchemaComponents();
  // The Error component: its own id makes zod answer `{$ref}`, the body itself lands in the components.
  components.convert(errorBodySchema, 'output');
  for (const op of operations) {
    const path = openApiPath(op.path);
    const responses: Record<string, JsonObject> = {};
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) >= 400) continue;
      const example = response.example === undefined ? {} : { example: response.example };
      responses[status] = {
        description: response.description,
        headers: responseHeaders(op, Number(status)),
        ...(response.schema === undefined
          ? {}
          : {
              content: {
                [response.mediaType ?? 'application/json']: {
                  schema: components.convert(response.schema, 'output'),
                  ...example,
                },
              },
            }),
      };
    }
    for (const [status, codes] of errorCodesOf(op)) {
      responses[String(status)] = errorResponse(op, status, codes);
    }
    const body = op.request?.body;
    const auth = authOf(op);
    paths[path] ??= {};
    paths[path][op.method] = {
      operationId: op.id,
      summary: op.summary,
      description: operationDescription(op),
      tags: op.tags,
      parameters: [
        ...parameters(op, components),
        ...(takesIdempotencyKey(op) ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
      ],
      ...(body === undefined
        ? {}
        : {
            requestBody: {
              // A body the operation also accepts absent (an approval without a price) is optional.
              required: !body.safeParse(undefined).success,
              content: {
                'application/json': {
                  schema: components.convert(op.request?.documentedBody ?? body, 'input'),
                  ...(op.request?.example === undefined ? {} : { example: op.request.example }),
                },
              },
            },
          }),
      responses,
      security: SECURITY[auth],
      ...(auth === 'key' ? { 'x-key-scopes': scopesAllowing(op) } : {}),
    };
  }
  const webhooks = webhookItems(components);
  const tags = [...new Set([...operations.flatMap((op) => op.tags), 'Webhooks'])].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `${name} operations`,
  }));
  const document: JsonObject = {
    openapi: '3.1.0',
    info: {
      title: 'Identity protection and licensing API',
      version: info.version,
      description:
        'Check identities before creating avatars, license protected identities, report usage, handle violations and receive signed webhooks. Every error is `{error: {code, message, details?}}` with a code of the closed set `ErrorCode`; every answer carries `X-Request-Id`, and every answer to a request with a valid API key carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
      license: { name: 'Proprietary' },
    },
    servers: [{ url: '/' }],
    tags,
    paths,
    webhooks,
    components: {
      schemas: components.finish(),
      headers: HEADERS,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a write safe to retry: the first answer is stored for 24 h and replayed for the same key and body; the same key with another body is 409 IDEMPOTENCY_CONFLICT. Keys are per platform.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
        },
      },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            '`svc_test_…` (sandbox) or `svc_live_…` (production). A key has a scope (`KeyScope`), chosen when it is issued: `full` reaches every operation, `read_only` the GET operations, `check_only` the identity checks and a check’s status; each operation lists the scopes that reach it in `x-key-scopes`, and any other scope gets 403 FORBIDDEN.',
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN)' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description:
            "A dashboard session (same origin only). It also stands in for the tenant's key on every public operation, and for ADMIN_TOKEN on the operator API when the account is the operator; every POST, PATCH and DELETE then needs X-CSRF-Token.",
        },
      },
    },
  };
  addExamples(document);
  return document;
}

interface MediaTypeObject {
  schema?: JsonObject;
  example?: unknown;
}

/**
 * Gives every JSON request body, success answer and webhook payload of the document an example
 * (issue #32): the operation's own where it declares one (a response's `example`, a request's
 * `request.example`), else one drawn from its schema by openapi-sampler (Redocly's, which Redoc
 * itself uses to draw samples), from the schemas' own `example`s (ids, names, URLs) and formats.
 * `make openapi-lint` (Redocly's no-invalid-media-type-examples) and the contracts' tests check
 * each against its schema.
 */
function addExamples(document: JsonObject): void {
  const fill = (media: MediaTypeObject | undefined, skip: 'skipReadOnly' | 'skipWriteOnly') => {
    if (media?.schema === undefined || media.example !== undefined) return;
    media.example = sample(media.schema, { [skip]: true, quiet: true }, document);
  };
  const json = (content: unknown) =>
    (content as Record<string, MediaTypeObject> | undefined)?.['application/json'];
  for (const item of Object.values(document.paths as Record<string, Record<string, JsonObject>>)) {
    for (const op of Object.values(item)) {
      fill(json((op.requestBody as JsonObject | undefined)?.content), 'skipReadOnly');
      for (const [status, response] of Object.entries(op.responses as Record<string, JsonObject>)) {
        if (Number(status) < 300) fill(json(response.content), 'skipWriteOnly');
      }
    }
  }
  for (const item of Object.values(document.webhooks as Record<string, { post: JsonObject }>)) {
    fill(json((item.post.requestBody as JsonObject).content), 'skipReadOnly');
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  Webhooks:
    'Signed deliveries of events to your endpoints (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`), and the endpoints that receive them',
};

/**
 * The `webhooks` section: one entry per public event type, a POST of its body (the schema the
 * dispatcher builds to) to the platform's endpoint, which acknowledges with any 2xx.
 */
function webhookItems(components: SchemaComponents): JsonObject {
  const boxing: readonly string[] = BOXING_EVENT_TYPES;
  const items: JsonObject = {};
  for (const type of WEBHOOK_EVENT_TYPES) {
    const family = boxing.includes(type)
      ? 'Boxing, license and payment family: `{id, event, createdAt, data}`, snake_case data.'
      : 'Grace-period family: `{id, type, createdAt, data}`, camelCase data.';
    items[type] = {
      post: {
        operationId: `webhook_${type.replace(/\./g, '_')}`,
        summary: PUBLIC_EVENT_SUMMARIES[type],
        description: `${PUBLIC_EVENT_SUMMARIES[type]}. ${family} Signed per Standard Webhooks (verify with the endpoint’s \`whsec_…\` secret, e.g. \`verifyWebhook\` of @svc/sdk); delivered at least once, retried with backoff on a non-2xx answer or a 10 s timeout.`,
        tags: ['Webhooks'],
        parameters: [
          {
            name: 'webhook-id',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'The event id (the same on every retry)',
          },
          {
            name: 'webhook-timestamp',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description: 'Unix seconds of this attempt',
          },
          {
            name: 'webhook-signature',
            in: 'header',
            required: true,
            schema: { type: 'string' },
            description:
              '`v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`; space-separated during a secret rotation',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: components.convert(publicEventBodySchemas[type], 'output') },
          },
        },
        responses: {
          '200': { description: 'Received (any 2xx acknowledges; anything else is retried)' },
        },
        security: [],
      },
    };
  }
  return items;
}
