import { sample } from 'openapi-sampler';
import type { JsonObject } from './openapi-schema-components';

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
export function addExamples(document: JsonObject): void {
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
