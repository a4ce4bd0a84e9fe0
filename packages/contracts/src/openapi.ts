import { errorBodySchema } from './common/schemas';
import { scopesAllowing } from './gateway/key-scopes';
import type { Operation } from './common/operation';
import { type JsonObject, SchemaComponents, openApiPath, parameters } from './openapi-schema-components';
import {
  authOf,
  takesIdempotencyKey,
  errorCodesOf,
  HEADERS,
  responseHeaders,
  errorResponse,
  operationDescription,
  SECURITY,
} from './openapi-responses';
import { addExamples } from './openapi-examples';
import { TAG_DESCRIPTIONS, webhookItems } from './openapi-webhooks';
export { errorCodesOf } from './openapi-responses';

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
