import fc from 'fast-check';
import type { JsonObject } from './fuzz-model';
import { NASTY_VALUES } from './nasty-values';

// Request bodies broken at one place, or as bytes, with the headers that go with them.

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
export function brokenBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ label: string; value: unknown }> {
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

export const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** Bodies broken as bytes, with the headers that go with them. */
export function rawBodies(
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
