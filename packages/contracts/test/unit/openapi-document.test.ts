import { z } from 'zod';
import {
  buildOpenApiDocument,
  dataOf,
  allOperations,
  defineOperation,
  listOperations,
  pageQuerySchema,
  WEBHOOK_EVENT_TYPES,
} from '@svc/contracts';

type Json = Record<string, unknown>;

// Operations a domain service would declare: a key-authenticated POST with a path parameter holding a
// digit, and a schema with an id whose input form (a default) differs from its output form.
const widgetSchema = z.object({ name: z.string(), color: z.string().default('blue') }).meta({ id: 'Widget' });
const createWidgetPart = defineOperation({
  id: 'createWidgetPart',
  method: 'post',
  path: '/v1/svc/widgets/:widgetId/parts/:part2',
  service: 'registry',
  summary: 'Test operation',
  tags: ['Test'],
  request: { params: z.object({ widgetId: z.string(), part2: z.string() }), body: widgetSchema },
  responses: { 201: { description: 'Created', schema: dataOf(widgetSchema) } },
});

// Declaring registers nothing: the document shows the operations it is given.
const operations = listOperations([...allOperations, createWidgetPart]);
const doc = buildOpenApiDocument(operations, { version: '1.2.3' });

function at(value: unknown, ...keys: (string | number)[]): Json {
  let current: unknown = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') throw new Error(`nothing at ${keys.join('.')}`);
    current = (current as Json)[key];
  }
  if (current === undefined) throw new Error(`nothing at ${keys.join('.')}`);
  return current as Json;
}

function allRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) allRefs(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.push(inner);
      else allRefs(inner, out);
    }
  }
  return out;
}

function resolve(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Json)[key] : undefined),
      doc,
    );
}

describe('OpenAPI document', () => {
  it('when built, then it is OpenAPI 3.1.0 with the given version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(at(doc, 'info').version).toBe('1.2.3');
  });

  it('when POST /admin/platforms is described, then its body requires name and plan, plan being one of the four plans', () => {
    const schema = at(
      doc,
      'paths',
      '/admin/platforms',
      'post',
      'requestBody',
      'content',
      'application/json',
      'schema',
    );

    expect(at(doc, 'paths', '/admin/platforms', 'post', 'requestBody').required).toBe(true);
    expect(schema.required).toEqual(['name', 'plan']);
    expect(at(schema, 'properties', 'plan').enum).toEqual(['sandbox', 'basic', 'standard', 'enterprise']);
    expect(Object.keys(at(schema, 'properties'))).toEqual(['name', 'plan', 'domain', 'limits']);
  });

  it('when a path has :params, then it is written with {braces} and each param is a required path parameter', () => {
    const paths = Object.keys(at(doc, 'paths'));

    expect(paths).toEqual(
      expect.arrayContaining([
        '/admin/platforms/{id}',
        '/admin/platforms/{id}/keys',
        '/admin/keys/{id}/rotate',
      ]),
    );
    expect(paths.filter((p) => p.includes(':'))).toEqual([]);
    expect(at(doc, 'paths', '/admin/platforms/{id}', 'get').parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'string' }) },
    ]);
  });

  it('when a path parameter name holds digits, then it is converted whole', () => {
    expect(Object.keys(at(doc, 'paths'))).toContain('/v1/svc/widgets/{widgetId}/parts/{part2}');
  });

  it('when a list takes the page query, then limit and offset are optional query parameters with their bounds', () => {
    const parameters = at(doc, 'paths', '/admin/platforms', 'get').parameters as Json[];

    expect(parameters).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ minimum: 1, maximum: 100, default: 20 }),
      },
      {
        name: 'offset',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ minimum: 0, default: 0 }),
      },
      // The list's own filters follow the page query.
      {
        name: 'kind',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ enum: ['platform', 'creator'] }),
      },
      { name: 'q', in: 'query', required: false, schema: expect.objectContaining({ type: 'string' }) },
      { name: 'ids', in: 'query', required: false, schema: expect.objectContaining({ type: 'string' }) },
    ]);
    expect(pageQuerySchema.parse({})).toEqual({ limit: 20, offset: 0 });
  });

  it('when an operation is described, then each error status answers the Error schema narrowed to the codes it can give', () => {
    const responses = at(doc, 'paths', '/v1/svc/widgets/{widgetId}/parts/{part2}', 'post', 'responses');
    const codesAt = (status: string) => {
      const schema = at(responses, status, 'content', 'application/json', 'schema');
      expect((schema.allOf as Json[])[0]).toEqual({ $ref: '#/components/schemas/Error' });
      return at((schema.allOf as Json[])[1], 'properties', 'error', 'properties', 'code').enum;
    };
    expect(codesAt('400')).toEqual(['VALIDATION_ERROR']);
    expect(codesAt('401')).toEqual(['UNAUTHORIZED', 'KEY_REVOKED', 'KEY_EXPIRED', 'WRONG_ENVIRONMENT']);
    expect(codesAt('404')).toEqual(['NOT_FOUND']);
    expect(codesAt('409')).toEqual(['IDEMPOTENCY_CONFLICT']);
    expect(codesAt('413')).toEqual(['VALIDATION_ERROR']);
    expect(codesAt('415')).toEqual(['VALIDATION_ERROR']);
    expect(codesAt('429')).toEqual(['RATE_LIMITED']);
    expect(codesAt('500')).toEqual(['INTERNAL']);
    expect(codesAt('503')).toEqual(['SERVICE_UNAVAILABLE']);
    // A dashboard session stands in for the key: a write without its CSRF token, or the operator's session, is 403.
    expect(codesAt('403')).toEqual(['FORBIDDEN']);
    expect(at(responses, '403').description).toMatch(
      /X-CSRF-Token.*another origin.*operator’s session on the public API/,
    );
    expect(at(responses, '201').description).toBe('Created');
    expect(at(responses, '201', 'headers')).toHaveProperty('X-Request-Id');
  });

  it('when operations declare their own errors, then those codes are listed under their statuses', () => {
    const codes = (path: string, method: string, status: string) =>
      at(
        at(doc, 'paths', path, method, 'responses', status, 'content', 'application/json', 'schema')
          .allOf as Json[],
        1,
        'properties',
        'error',
        'properties',
        'code',
      ).enum;
    expect(codes('/v1/svc/identity/check', 'post', '400')).toEqual(['VALIDATION_ERROR', 'INVALID_NAME']);
    expect(codes('/v1/svc/identity/check', 'post', '422')).toEqual(['INVALID_IMAGE_URL']);
    expect(codes('/v1/svc/identity/check', 'post', '413')).toEqual(['IMAGE_TOO_LARGE', 'VALIDATION_ERROR']);
    expect(codes('/v1/svc/identity/check/batch', 'post', '400')).toEqual([
      'VALIDATION_ERROR',
      'INVALID_NAME',
      'BATCH_TOO_LARGE',
    ]);
    expect(codes('/v1/svc/boxes', 'post', '409')).toEqual(['INVALID_STATE', 'IDEMPOTENCY_CONFLICT']);
    expect(codes('/v1/svc/test-helpers/advance-time', 'post', '403')).toEqual(['FORBIDDEN']);
    // The operator API: the operator token only, no rate limit, no Idempotency-Key.
    expect(codes('/admin/platforms', 'post', '401')).toEqual(['UNAUTHORIZED']);
    // The operator's session stands in for the token; another account's session is refused.
    expect(codes('/admin/platforms', 'post', '403')).toEqual(['FORBIDDEN']);
    expect(at(doc, 'paths', '/admin/platforms', 'post', 'responses')).not.toHaveProperty('429');
    expect(at(doc, 'paths', '/admin/platforms', 'post', 'responses')).not.toHaveProperty('409');
  });

  it('when any operation is described, then it has a description and answers 500, and every error code it lists belongs to its status', () => {
    for (const [path, item] of Object.entries(at(doc, 'paths'))) {
      for (const [method, op] of Object.entries(item as Json)) {
        const operation = op as Json;
        expect(typeof operation.description).toBe('string');
        const responses = operation.responses as Json;
        expect({ path, method, has500: '500' in responses }).toEqual({ path, method, has500: true });
        for (const [status, response] of Object.entries(responses)) {
          if (Number(status) < 400) continue;
          const schema = at(response, 'content', 'application/json', 'schema');
          const listed = at((schema.allOf as Json[])[1], 'properties', 'error', 'properties', 'code')
            .enum as unknown as string[];
          expect(listed.length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('when a keyed operation answers, then X-RateLimit-* are on every answer but its 401, and Retry-After on its 429 and 503', () => {
    const responses = at(doc, 'paths', '/v1/svc/claims', 'get', 'responses');
    for (const status of ['200', '400', '429', '500', '503']) {
      expect(Object.keys(at(responses, status, 'headers'))).toEqual(
        expect.arrayContaining([
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
        ]),
      );
    }
    expect(at(responses, '401', 'headers')).not.toHaveProperty('X-RateLimit-Limit');
    expect(at(responses, '429', 'headers')).toHaveProperty('Retry-After');
    expect(at(responses, '503', 'headers')).toHaveProperty('Retry-After');
    expect(at(responses, '200', 'headers')).not.toHaveProperty('Retry-After');
    expect(at(doc, 'paths', '/admin/platforms', 'get', 'responses', '200', 'headers')).not.toHaveProperty(
      'X-RateLimit-Limit',
    );
    expect(at(doc, 'paths', '/v1/svc/claims', 'post', 'responses', '201', 'headers')).toHaveProperty(
      'Idempotent-Replayed',
    );
  });

  it('when the webhooks section is read, then every public event of both families has its payload schema', () => {
    const webhooks = at(doc, 'webhooks');
    expect(Object.keys(webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    const bodyOf = (type: string) => {
      const schema = at(webhooks, type, 'post', 'requestBody', 'content', 'application/json', 'schema');
      return resolve(schema.$ref as string) as Json;
    };
    expect(at(bodyOf('grace_period.reminder'), 'properties', 'type')).toEqual({
      type: 'string',
      const: 'grace_period.reminder',
    });
    expect(at(bodyOf('grace_period.reminder'), 'properties', 'data', 'properties')).toHaveProperty(
      'reminderDay',
    );
    expect(at(bodyOf('payment.due'), 'properties', 'event')).toEqual({
      type: 'string',
      const: 'payment.due',
    });
    expect(at(bodyOf('payment.due'), 'properties', 'data', 'required')).toEqual(
      expect.arrayContaining(['amount', 'recipient']),
    );
    expect(at(bodyOf('boxing.created'), 'properties', 'data', 'required')).toEqual(
      expect.arrayContaining(['identity_id', 'deadline']),
    );
  });

  it('when the Error component is read, then it is the error body itself: error.code and error.message required', () => {
    const error = at(doc, 'components', 'schemas', 'Error');

    expect(error.type).toBe('object');
    expect(error.required).toEqual(['error']);
    expect(at(error, 'properties', 'error').required).toEqual(['code', 'message']);
  });

  it('when any $ref in the document is followed, then it leads to a schema inside the document', () => {
    const refs = allRefs(doc);

    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => resolve(ref) === undefined)).toEqual([]);
  });

  it('when a named schema is returned, then the response refers to it in components.schemas', () => {
    const created = at(
      doc,
      'paths',
      '/admin/platforms',
      'post',
      'responses',
      '201',
      'content',
      'application/json',
      'schema',
    );

    expect(at(created, 'properties', 'data')).toEqual({ $ref: '#/components/schemas/Platform' });
    expect(at(doc, 'components', 'schemas', 'Platform').required).toEqual(
      expect.arrayContaining(['id', 'name', 'plan', 'createdAt']),
    );
  });

  it('when a named schema reads differently as input than as output, then the request uses a separate <name>Input', () => {
    const operation = at(doc, 'paths', '/v1/svc/widgets/{widgetId}/parts/{part2}', 'post');

    expect(at(operation, 'requestBody', 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/WidgetInput',
    });
    expect(
      at(operation, 'responses', '201', 'content', 'application/json', 'schema', 'properties', 'data'),
    ).toEqual({
      $ref: '#/components/schemas/Widget',
    });
    expect(at(doc, 'components', 'schemas', 'WidgetInput').required).toEqual(['name']);
    expect(at(doc, 'components', 'schemas', 'Widget').required).toEqual(['name', 'color']);
  });

  it('when security is described, then admin operations take the operator token or session, dashboard ones the session cookie and others the API key or a session', () => {
    expect(at(doc, 'paths', '/admin/platforms', 'post').security).toEqual([
      { adminToken: [] },
      { session: [] },
    ]);
    expect(at(doc, 'paths', '/dashboard/api/keys', 'post').security).toEqual([{ session: [] }]);
    // Signing up and in needs nothing yet.
    expect(at(doc, 'paths', '/dashboard/api/session', 'post').security).toEqual([]);
    expect(at(doc, 'paths', '/v1/svc/widgets/{widgetId}/parts/{part2}', 'post').security).toEqual([
      { apiKey: [] },
      { session: [] },
    ]);
    expect(at(doc, 'components', 'securitySchemes')).toEqual({
      apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      adminToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      session: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'svc_session' }),
    });
  });

  it('when a POST is key-authenticated, then it takes an optional Idempotency-Key header; admin POSTs and GETs do not', () => {
    const header = { $ref: '#/components/parameters/IdempotencyKey' };
    expect(at(doc, 'components', 'parameters', 'IdempotencyKey')).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 255 },
    });
    const params = (path: string, method: string) => at(doc, 'paths', path, method).parameters as Json[];

    expect(params('/v1/svc/widgets/{widgetId}/parts/{part2}', 'post')).toContainEqual(header);
    expect(params('/admin/platforms', 'post')).not.toContainEqual(header);
    expect(params('/admin/platforms', 'get')).not.toContainEqual(header);
    expect(params('/v1/svc/claims', 'get')).not.toContainEqual(header);
  });

  it('when an operation id is listed twice, then listing the operations throws', () => {
    const again = defineOperation({
      id: 'adminCreatePlatform',
      method: 'post',
      path: '/x',
      service: 'gateway',
      summary: 'x',
      tags: [],
      responses: {},
    });
    expect(() => listOperations([...allOperations, again])).toThrow(
      'Operation adminCreatePlatform is declared twice',
    );
  });

  it('when the document is built twice, then both are the same (nothing is consumed or shared between builds)', () => {
    expect(buildOpenApiDocument(operations, { version: '1.2.3' })).toEqual(doc);
  });
});

describe('response examples', () => {
  const withExamples = allOperations.flatMap((op) =>
    Object.entries(op.responses)
      .filter(([, response]) => response.example !== undefined)
      .map(([status, response]) => ({ op, status, response })),
  );

  it('when an operation declares an example answer, then its schema accepts it and the document shows it under its media type', () => {
    expect(withExamples.length).toBeGreaterThanOrEqual(7);
    for (const { op, status, response } of withExamples) {
      const parsed = response.schema!.safeParse(response.example);
      expect({ op: op.id, issues: parsed.error?.issues ?? [] }).toEqual({ op: op.id, issues: [] });
      const path = op.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const documented = (doc.paths as any)[path][op.method].responses[status].content;
      expect(documented[response.mediaType ?? 'application/json'].example).toEqual(response.example);
    }
  });
});
