import fc from 'fast-check';
import type { JsonObject } from './fuzz-model';
import { MAX_INT32, NAMES, IMAGE_URLS, HOOK_URLS } from './nasty-values';

// Values drawn from a JSON schema of the served document that it accepts most of the time.

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
