import { z } from 'zod';
import type { Operation } from './common/operation';

// The OpenAPI document's schemas: zod schemas converted, their ids moved to components, and parameters.

export type JsonObject = Record<string, unknown>;

/**
 * Turns zod schemas into OpenAPI schema objects. zod puts a schema with an `id` (`.meta({id})`) in
 * the `$defs` of the one schema it converts and refers to it as `#/$defs/<id>`; inside an OpenAPI
 * document `#` is the document, so those references would dangle. They are moved to
 * `components.schemas` instead. zod's input and output forms of one id can differ (defaults,
 * `additionalProperties`): the output form keeps the name, a different input form is `<id>Input`.
 */
export class SchemaComponents {
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

export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

export function parameters(op: Operation, components: SchemaComponents): JsonObject[] {
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
