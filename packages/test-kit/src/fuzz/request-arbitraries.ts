import fc from 'fast-check';

// Requests generated from an OpenAPI 3.1 document: valid ones from each operation's schemas, and
// ones broken in each way a careless client or an attacker would break them (issue #13).

type JsonObject = Record<string, unknown>;

/** One operation of the served document, as the fuzzer reads it. */
export interface FuzzOperation {
  id: string;
  method: string;
  /** OpenAPI path, `{param}` segments. */
  path: string;
  operator: boolean;
  pathParams: string[];
  query: { name: string; schema: JsonObject }[];
  body?: JsonObject;
}

/** Who sends a request: the attacking platform's key, the operator token, or something broken. */
export type Sender = 'key' | 'admin' | 'none' | 'garbage';

/** One generated request, raw enough to carry what fetch would otherwise clean up. */
export interface FuzzRequest {
  operationId: string;
  /** What was broken, for the report. */
  label: string;
  method: string;
  /** Path and query, already encoded (or deliberately mis-encoded). */
  url: string;
  sender: Sender;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** Ids the generator may put where an id goes (real resources make deeper code run). */
export interface IdPool {
  key: string[];
  admin: string[];
}

const MAX_INT32 = 2_147_483_647;

/** Values of the wrong type, out of range or of odd Unicode, put in place of a valid field. */
export const NASTY_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  3_000_000_000,
  MAX_INT32 + 1,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'Ada\ud800',
  '\udc00x',
  '\ud83d',
  '\u202eevil\u202c',
  '\ufeffBOM',
  'z\u0301\u0301\u0301\u0301',
  '\u200b\u200d',
  '😀'.repeat(60),
  'x'.repeat(10_000),
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '1e400',
  {},
  [],
  [[[[]]]],
  ['a\u0000'],
  { 'k\u0000': 1 },
  { '\ud800': 'x' },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  Array.from({ length: 200 }, (_, i) => i),
];

/** Path segments that are not an id: bad percent-encoding, NUL, lone surrogates, huge, odd. */
export const BROKEN_PATH_SEGMENTS: readonly string[] = [
  '%E0%A4%A',
  '%zz',
  '%',
  '%00',
  'claim_%00',
  '%ED%A0%80',
  '%C0%80',
  '%FF',
  'a'.repeat(5_000),
  '%F0%9F%98%80',
  'caf%C3%A9',
  '%20',
  '%2F',
  '%0A',
  "'%20OR%201=1",
  'null',
  '-1',
];

const BROKEN_QUERY_VALUES: readonly string[] = [
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  '1e400',
  '-1',
  '99999999999999999999',
  '',
  'NaN',
  'true',
  'a'.repeat(300),
  '%zz',
];

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Nikola Tesla', 'Ông Văn', 'Zoë Ã', '李小龙'];
const IMAGE_URLS = ['http://127.0.0.1:9/a.png', 'https://img.invalid/a.png'];
const HOOK_URLS = ['https://hooks.invalid/svc', 'http://127.0.0.1:9/hook'];

function resolve(node: unknown, doc: JsonObject): JsonObject {
  let current = (node ?? {}) as JsonObject;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const name = current.$ref.split('/').pop() ?? '';
    const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
    current = schemas[name] ?? {};
  }
  return current;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function stringArb(node: JsonObject, field: string, pool: string[]): fc.Arbitrary<string> {
  const min = num(node.minLength) ?? 0;
  const max = Math.min(num(node.maxLength) ?? 40, 40);
  if (/(^id$|Id$|_id$)/.test(field) && pool.length > 0) {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...pool) },
      { weight: 1, arbitrary: fc.constantFrom('box_000000000000000000', 'lic_x', 'nope') },
    );
  }
  if (node.format === 'uri' || /url$/i.test(field)) {
    return fc.constantFrom(...(/hook|^url$/i.test(field) ? HOOK_URLS : IMAGE_URLS));
  }
  if (node.format === 'email') return fc.constantFrom('someone@example.com', 'a.b@example.org');
  if (/name|variation/i.test(field)) return fc.constantFrom(...NAMES);
  if (typeof node.pattern === 'string') {
    try {
      const pattern = new RegExp(node.pattern);
      // Kept short when a shorter value still matches; a pattern that fixes a longer length (a
      // 44-character base64 hash) keeps its length, or no value would ever pass the filter.
      return fc
        .stringMatching(pattern)
        .map((s) => {
          const cut = s.slice(0, Math.max(max, min));
          return pattern.test(cut) ? cut : s;
        })
        .filter((s) => s.length >= min && pattern.test(s));
    } catch {
      // a pattern JavaScript cannot read: fall through to plain strings
    }
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

/** Values that satisfy `schema` most of the time (and exercise the code behind validation). */
export function validValue(
  schema: unknown,
  doc: JsonObject,
  pool: string[],
  field = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  const node = resolve(schema, doc);
  if (node.const !== undefined) return fc.constant(node.const);
  if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...(node.enum as unknown[]));
  const alternatives = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const usable = alternatives.filter((alt) => resolve(alt, doc).type !== 'null');
    return fc.oneof(
      ...(usable.length > 0 ? usable : alternatives).map((alt) => validValue(alt, doc, pool, field, depth)),
    );
  }
  const type = Array.isArray(node.type) ? (node.type as string[]).find((t) => t !== 'null') : node.type;
  const min = num(node.minimum) ?? num(node.exclusiveMinimum) ?? 0;
  const max = num(node.maximum) ?? num(node.exclusiveMaximum) ?? 1_000;
  switch (type) {
    case 'string':
      return stringArb(node, field, pool);
    case 'integer':
      return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, MAX_INT32)) });
    case 'number':
      return fc.oneof(
        fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 1e9)) }),
        fc
          .integer({ min: Math.ceil(min * 100), max: Math.floor(Math.min(max, 1e6) * 100) })
          .map((n) => n / 100),
      );
    case 'boolean':
      return fc.boolean();
    case 'array': {
      if (depth > 5) return fc.constant([]);
      const minItems = num(node.minItems) ?? 0;
      const maxItems = Math.min(num(node.maxItems) ?? 3, Math.max(minItems, 3));
      return fc.array(validValue(node.items, doc, pool, field, depth + 1), {
        minLength: minItems,
        maxLength: maxItems,
      });
    }
    case 'object':
    default: {
      if (depth > 5) return fc.constant({});
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      const keys = Object.keys(properties);
      if (keys.length === 0) {
        const extra = node.additionalProperties;
        if (extra !== undefined && extra !== false && typeof extra === 'object') {
          return fc.dictionary(
            fc.constantFrom('subscribers', 'messages', 'tips', 'ads', 'subscriptions'),
            validValue(extra, doc, pool, '', depth + 1),
            { maxKeys: 3 },
          );
        }
        return fc.constant({});
      }
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const key of keys) shape[key] = validValue(properties[key], doc, pool, key, depth + 1);
      const required = ((node.required as string[] | undefined) ?? []).filter((k) => keys.includes(k));
      return fc.record(shape, { requiredKeys: required });
    }
  }
}

/** Every path to an object member or array item of `value` (the places a mutation can hit). */
function pathsOf(
  value: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (prefix.length > 4) return out;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push([...prefix, index]);
      pathsOf(item, [...prefix, index], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      out.push([...prefix, key]);
      pathsOf((value as JsonObject)[key], [...prefix, key], out);
    }
  }
  return out;
}

function withChange(
  value: unknown,
  path: (string | number)[],
  change: (holder: JsonObject, key: string | number) => void,
): unknown {
  const copy = structuredClone(value);
  let holder = copy as JsonObject;
  for (const step of path.slice(0, -1)) holder = holder[step as string] as JsonObject;
  const last = path[path.length - 1];
  if (last !== undefined && holder !== null && typeof holder === 'object') change(holder, last);
  return copy;
}

/** A valid body broken at one place: a nasty value, a missing field, or an unknown/odd key. */
function brokenBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ label: string; value: unknown }> {
  return fc
    .tuple(
      valid,
      fc.nat(),
      fc.constantFrom(...NASTY_VALUES),
      fc.constantFrom('set', 'set', 'set', 'delete', 'odd-key'),
    )
    .map(([value, pick, nasty, how]) => {
      const paths = pathsOf(value);
      const path = paths.length === 0 ? undefined : paths[pick % paths.length];
      if (path === undefined || how === 'odd-key') {
        const odd = { ...(value as JsonObject) };
        Object.defineProperty(odd, pick % 2 === 0 ? '__proto__' : 'k\u0000\ud800', {
          value: nasty,
          enumerable: true,
        });
        return { label: 'odd key', value: odd };
      }
      if (how === 'delete') {
        return {
          label: `missing ${path.join('.')}`,
          value: withChange(value, path, (holder, key) => {
            if (Array.isArray(holder)) holder.splice(Number(key), 1);
            else delete holder[key as string];
          }),
        };
      }
      return {
        label: `${path.join('.')} = ${JSON.stringify(nasty)?.slice(0, 40) ?? 'undefined'}`,
        value: withChange(value, path, (holder, key) => {
          holder[key as string] = nasty;
        }),
      };
    });
}

const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** Bodies broken as bytes, with the headers that go with them. */
function rawBodies(
  valid: fc.Arbitrary<unknown>,
): fc.Arbitrary<{ label: string; body: string | Uint8Array; headers: Record<string, string> }> {
  const jsonType = { 'content-type': 'application/json' };
  return fc.oneof(
    fc.constant({
      label: 'nested 10,000 deep',
      body: `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      headers: jsonType,
    }),
    fc.constant({
      label: 'array body nested 10,000 deep',
      body: '['.repeat(10_000) + ']'.repeat(10_000),
      headers: jsonType,
    }),
    fc.constant({ label: 'malformed JSON', body: '{"name": "Ada",', headers: jsonType }),
    fc.constant({ label: 'over 1 MB', body: json({ blob: 'x'.repeat(1_100_000) }), headers: jsonType }),
    fc
      .constantFrom('[]', '"text"', 'null', '42', 'true', '{}', '[{}]')
      .map((body) => ({ label: `body ${body}`, body, headers: jsonType })),
    valid.map((v) => ({
      label: 'gzip header, plain body',
      body: json(v),
      headers: { ...jsonType, 'content-encoding': 'gzip' },
    })),
    valid.map((v) => ({
      label: 'deflate header',
      body: json(v),
      headers: { ...jsonType, 'content-encoding': 'deflate, identity' },
    })),
    valid.map((v) => ({ label: 'text/plain', body: json(v), headers: { 'content-type': 'text/plain' } })),
    valid.map((v) => ({ label: 'no content type', body: new TextEncoder().encode(json(v)), headers: {} })),
    valid.map((v) => ({
      label: 'charset utf-16',
      body: json(v),
      headers: { 'content-type': 'application/json; charset=utf-16' },
    })),
    valid.map((v) => ({
      label: 'form body',
      body: `a=${encodeURIComponent(json(v))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })),
    valid.map((v) => ({
      label: 'latin-1 bytes',
      body: Buffer.from(json(v).replace(/"$/, '') + '\u00e9', 'latin1'),
      headers: jsonType,
    })),
  );
}

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
