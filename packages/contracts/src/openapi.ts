import { z } from 'zod';
import { errorBodySchema } from './common/schemas';
import type { Operation } from './common/operation';

type JsonObject = Record<string, unknown>;

const STANDARD_ERRORS: Record<number, string> = {
  400: 'VALIDATION_ERROR (or another 400 code)',
  401: 'UNAUTHORIZED, KEY_REVOKED, KEY_EXPIRED or WRONG_ENVIRONMENT',
  404: 'NOT_FOUND (also for another platform’s resource)',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

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

const SECURITY_HEADERS = {
  'X-Request-Id': { schema: { type: 'string' }, description: 'Echoed from the request, or generated' },
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests per minute' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix seconds' },
};

/** Builds the OpenAPI 3.1 document from the declared operations' zod schemas. */
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
      responses[status] = {
        description: response.description,
        headers: SECURITY_HEADERS,
        ...(response.schema === undefined
          ? {}
          : { content: { 'application/json': { schema: components.convert(response.schema, 'output') } } }),
      };
    }
    for (const [status, description] of Object.entries(STANDARD_ERRORS)) {
      responses[status] ??= {
        description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    const body = op.request?.body;
    const isAdmin = op.path.startsWith('/admin');
    const security =
      op.auth === 'none'
        ? []
        : op.auth === 'session'
          ? [{ session: [] }]
          : isAdmin
            ? [{ adminToken: [] }]
            : [{ apiKey: [] }];
    paths[path] ??= {};
    paths[path][op.method] = {
      operationId: op.id,
      summary: op.summary,
      tags: op.tags,
      parameters: [
        ...parameters(op, components),
        ...(op.method === 'get' || isAdmin || op.auth === 'session' || op.auth === 'none'
          ? []
          : [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                schema: { type: 'string', maxLength: 255 },
              },
            ]),
      ],
      ...(body === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: components.convert(body, 'input') } },
            },
          }),
      responses,
      security,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Identity protection and licensing API',
      version: info.version,
      description:
        'Check identities before creating avatars, license protected identities, report usage, handle violations and receive signed webhooks.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components.finish(),
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: '`svc_test_…` (sandbox) or `svc_live_…` (production)',
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
}
