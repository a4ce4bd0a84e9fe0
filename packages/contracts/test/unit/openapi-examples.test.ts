import { allOperations } from '../../src/catalogue';
import { publicOpenApiDocument } from '../../src/public-document';
import { publicEventBodySchemas } from '../../src/webhook-dispatcher/public-events';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhook-dispatcher/event-types';

// Issue #32: no operation or webhook of the document had an example. Now every JSON request body,
// success answer and webhook payload has one, and the very schema that checks the real thing
// accepts it: the request validator of the owning service, the answer's schema, the dispatcher's
// payload schema.
type Json = Record<string, any>;
const doc = publicOpenApiDocument() as Json;
const openApiPath = (path: string) => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
const problems = (result: { success: boolean; error?: { issues: unknown[] } }) =>
  result.success ? [] : (result.error?.issues ?? ['refused']);

describe("the OpenAPI document's examples", () => {
  it('when an operation takes a JSON body, then the document shows an example its validator accepts', () => {
    const refused: unknown[] = [];
    let bodies = 0;
    for (const op of allOperations) {
      const body = op.request?.body;
      if (body === undefined) continue;
      bodies += 1;
      const media = doc.paths[openApiPath(op.path)][op.method].requestBody.content['application/json'];
      expect(media).toHaveProperty('example');
      const issues = problems(body.safeParse(media.example));
      if (issues.length > 0) refused.push({ op: op.id, example: media.example, issues });
    }
    expect(refused).toEqual([]);
    expect(bodies).toBeGreaterThan(40);
  });

  it('when an operation answers a body, then each success answer shows an example of its schema', () => {
    const refused: unknown[] = [];
    let answers = 0;
    for (const op of allOperations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) >= 300 || response.schema === undefined) continue;
        answers += 1;
        const media =
          doc.paths[openApiPath(op.path)][op.method].responses[status].content[
            response.mediaType ?? 'application/json'
          ];
        expect(media).toHaveProperty('example');
        const issues = problems(response.schema.safeParse(media.example));
        if (issues.length > 0) refused.push({ op: op.id, status, issues });
      }
    }
    expect(refused).toEqual([]);
    expect(answers).toBeGreaterThan(100);
  });

  it('when a webhook is described, then its payload has an example of the schema the dispatcher sends', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const media = doc.webhooks[type].post.requestBody.content['application/json'];
      expect(problems(publicEventBodySchemas[type].safeParse(media.example))).toEqual([]);
    }
  });

  it('when the identity check is described, then its examples are the written ones: a new name, a protected face', () => {
    const check = doc.paths['/v1/svc/identity/check'].post;
    expect(check.requestBody.content['application/json'].example.name).toBe('Ava Lumen');
    expect(check.responses['200'].content['application/json'].example).toMatchObject({
      matchedIdentity: { name: 'Ada Lovelace' },
      detection: { classification: 'FACE_MATCH', likeness: { band: 'match' } },
      action: 'TRACK_REVENUE',
    });
  });
});
