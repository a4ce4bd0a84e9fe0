import fc from 'fast-check';
import type { JsonObject, FuzzOperation, Sender, FuzzRequest, IdPool } from './fuzz-model';
import { NASTY_VALUES, BROKEN_PATH_SEGMENTS, BROKEN_QUERY_VALUES } from './nasty-values';
import { validValue } from './valid-values';
import { brokenBody, json, rawBodies } from './broken-bodies';
export type { FuzzOperation, Sender, FuzzRequest, IdPool } from './fuzz-model';
export { NASTY_VALUES, BROKEN_PATH_SEGMENTS } from './nasty-values';
export * from './valid-values';

// Requests generated from an OpenAPI 3.1 document: valid ones from each operation's schemas, and
// ones broken in each way a careless client or an attacker would break them (issue #13).

const oddHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'idempotency-key': fc.oneof(fc.uuid(), fc.constantFrom('x'.repeat(300), '\u00ff\u00fe', ' ', 'a b', '')),
    'x-request-id': fc.constantFrom('x'.repeat(500), '../..', '\u00e9t\u00e9', '<script>', ''),
    accept: fc.constantFrom('text/html', '*/*', 'application/xml', '\u00ff'),
    'x-forwarded-for': fc.constantFrom('127.0.0.1', '::1, 10.0.0.1', 'not-an-ip'),
    'content-language': fc.constantFrom('\u00ff\u00ff', 'en'),
  },
  { requiredKeys: [] },
);

function pathArb(op: FuzzOperation, pool: string[]): fc.Arbitrary<{ label: string; path: string }> {
  const segment = fc.oneof(
    {
      weight: 4,
      arbitrary:
        pool.length > 0
          ? fc.constantFrom(...pool).map((id) => ({ id: encodeURIComponent(id), broken: false }))
          : fc.constant({ id: 'x', broken: false }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('claim_0000000000000000', 'nope').map((id) => ({ id, broken: false })),
    },
    { weight: 2, arbitrary: fc.constantFrom(...BROKEN_PATH_SEGMENTS).map((id) => ({ id, broken: true })) },
  );
  return fc.tuple(...op.pathParams.map(() => segment)).map((segments) => {
    let path = op.path;
    op.pathParams.forEach((name, index) => {
      path = path.replace(`{${name}}`, segments[index]?.id ?? '');
    });
    const broken = segments.filter((s) => s.broken).map((s) => s.id.slice(0, 20));
    return { label: broken.length === 0 ? '' : `path ${broken.join(',')}`, path };
  });
}

function queryArb(
  op: FuzzOperation,
  doc: JsonObject,
  pool: string[],
): fc.Arbitrary<{ label: string; query: string }> {
  const parts = op.query.map(({ name, schema }) =>
    fc.option(
      fc.oneof(
        {
          weight: 3,
          arbitrary: validValue(schema, doc, pool, name).map((v) => ({
            text: `${name}=${encodeURIComponent(String(v))}`,
            broken: false,
          })),
        },
        {
          weight: 2,
          arbitrary: fc
            .constantFrom(...BROKEN_QUERY_VALUES)
            .map((v) => ({ text: `${name}=${v}`, broken: true })),
        },
        { weight: 1, arbitrary: fc.constant({ text: `${name}=1&${name}=2`, broken: true }) },
      ),
      { nil: undefined },
    ),
  );
  return fc
    .tuple(fc.tuple(...parts), fc.constantFrom('', '&unknown=%00', '&limit[]=1'))
    .map(([chosen, extra]) => {
      const present = chosen.filter((c): c is { text: string; broken: boolean } => c !== undefined);
      const text =
        present.map((c) => c.text).join('&') + (present.length === 0 ? extra.replace(/^&/, '') : extra);
      const broken = present.filter((c) => c.broken).map((c) => c.text.slice(0, 30));
      return {
        label: broken.length === 0 ? '' : `query ${broken.join(',')}`,
        query: text === '' ? '' : `?${text}`,
      };
    });
}

/** Requests for one operation: mostly well-formed, many broken in one way, some broken as bytes or headers. */
export function requestArbitrary(
  op: FuzzOperation,
  doc: JsonObject,
  pools: IdPool,
): fc.Arbitrary<FuzzRequest> {
  const pool = op.operator ? pools.admin : pools.key;
  const hasBody = op.body !== undefined;
  const valid = hasBody ? validValue(op.body, doc, pool) : fc.constant(undefined);
  type BodyChoice = { label: string; body?: string | Uint8Array; headers: Record<string, string> };
  const jsonType = { 'content-type': 'application/json' };
  const bodies: fc.Arbitrary<BodyChoice> = hasBody
    ? fc.oneof(
        {
          weight: 4,
          arbitrary: valid.map((v): BodyChoice => ({
            label: 'valid body',
            body: json(v),
            headers: jsonType,
          })),
        },
        {
          weight: 5,
          arbitrary: brokenBody(valid).map((b): BodyChoice => ({
            label: b.label,
            body: json(b.value),
            headers: jsonType,
          })),
        },
        { weight: 2, arbitrary: rawBodies(valid) },
        { weight: 1, arbitrary: fc.constant<BodyChoice>({ label: 'no body', headers: {} }) },
      )
    : op.method === 'get'
      ? // fetch sends no body with a GET
        fc.constant<BodyChoice>({ label: '', headers: {} })
      : fc.oneof(
          { weight: 6, arbitrary: fc.constant<BodyChoice>({ label: '', headers: {} }) },
          {
            weight: 1,
            arbitrary: fc
              .constantFrom(...NASTY_VALUES.slice(0, 20))
              .map((v): BodyChoice => ({ label: 'unexpected body', body: json(v), headers: jsonType })),
          },
          { weight: 1, arbitrary: rawBodies(fc.constant({})) },
        );
  const sender: fc.Arbitrary<Sender> = fc.oneof(
    { weight: 12, arbitrary: fc.constant<Sender>(op.operator ? 'admin' : 'key') },
    { weight: 1, arbitrary: fc.constantFrom<Sender>('none', 'garbage', op.operator ? 'key' : 'admin') },
  );
  return fc
    .record({
      path: pathArb(op, pool),
      query: queryArb(op, doc, pool),
      body: bodies,
      sender,
      headers: fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: oddHeaders }),
    })
    .map(({ path, query, body, sender: who, headers }) => ({
      operationId: op.id,
      label: [
        path.label,
        query.label,
        body.label,
        Object.keys(headers).length > 0 ? 'odd headers' : '',
        who === 'key' || who === 'admin' ? '' : `auth ${who}`,
      ]
        .filter((part) => part !== '')
        .join('; '),
      method: op.method.toUpperCase(),
      url: path.path + query.query,
      sender: who,
      headers: { ...headers, ...body.headers },
      ...(body.body === undefined ? {} : { body: body.body }),
    }));
}

/** The operations of a served OpenAPI document. */
export function operationsOf(doc: JsonObject): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(
    (doc.paths ?? {}) as Record<string, Record<string, JsonObject>>,
  )) {
    for (const [method, op] of Object.entries(item)) {
      const parameters = (op.parameters ?? []) as JsonObject[];
      const security = (op.security ?? []) as JsonObject[];
      const body = ((op.requestBody as JsonObject | undefined)?.content as JsonObject | undefined)?.[
        'application/json'
      ] as JsonObject | undefined;
      out.push({
        id: String(op.operationId ?? `${method} ${path}`),
        method,
        path,
        operator: security.some((s) => 'adminToken' in s),
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: String(p.name), schema: (p.schema ?? {}) as JsonObject })),
        ...(body?.schema === undefined ? {} : { body: body.schema as JsonObject }),
      });
    }
  }
  return out;
}
