import { z } from 'zod';
import { fieldProblems, validationErrorFrom } from '../../src';

const claimBody = z.object({
  name: z.string().min(1),
  referenceImages: z.array(z.object({ url: z.url() })).max(5),
  policy: z.enum(['BLOCK_ALL', 'OPEN']),
});

function failureOf(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected the value to be refused');
  return result.error;
}

describe('validationErrorFrom', () => {
  it('when a nested array item is bad, then details name it by its path, e.g. referenceImages.0.url', () => {
    const err = validationErrorFrom(
      failureOf(claimBody, { name: 'Ada', referenceImages: [{ url: 'not a url' }], policy: 'OPEN' }),
    );

    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.status).toBe(400);
    expect(err.details).toEqual({
      fields: [{ field: 'referenceImages.0.url', message: expect.any(String) }],
    });
    expect(err.message).toMatch(/^Invalid body: referenceImages\.0\.url: /);
  });

  it('when several fields are bad, then every one of them is named', () => {
    const err = validationErrorFrom(
      failureOf(claimBody, {
        name: '',
        referenceImages: [{ url: 'https://ok.example/a.png' }, { url: 'x' }],
        policy: 'NOPE',
      }),
    );
    const fields = (err.details as { fields: { field: string }[] }).fields.map((f) => f.field);

    expect(fields.sort()).toEqual(['name', 'policy', 'referenceImages.1.url']);
  });

  it('when a required field is missing, then it is named with a message saying so', () => {
    const err = validationErrorFrom(failureOf(claimBody, { referenceImages: [], policy: 'OPEN' }));

    expect(err.details).toEqual({
      fields: [{ field: 'name', message: 'required' }],
    });
  });

  it('when zod words a problem, then the field gets plain words; a schema’s own message is kept', () => {
    const schema = z
      .object({
        name: z.string().trim().min(1).max(200),
        note: z.string().min(3, 'say a little more'),
        tags: z.array(z.string()).max(2),
        rate: z.number().min(0).max(1),
        count: z.number().int().positive(),
        email: z.email(),
        site: z.url(),
        at: z.iso.datetime(),
        policy: z.enum(['BLOCK_ALL', 'OPEN']),
        flag: z.boolean(),
      })
      .strict();
    const problems = fieldProblems(
      failureOf(schema, {
        name: 'x'.repeat(201),
        note: 'hi',
        tags: ['a', 'b', 'c'],
        rate: 1.5,
        count: 0,
        email: 'nope',
        site: 'not a url',
        at: 'yesterday',
        policy: 'SOMETIMES',
        flag: 'yes',
        extra: 1,
      }),
    );
    expect(Object.fromEntries(problems.map((p) => [p.field, p.message]))).toEqual({
      name: 'at most 200 characters',
      note: 'say a little more',
      tags: 'at most 2 items',
      rate: 'at most 1',
      count: 'more than 0',
      email: 'expected an e-mail address such as ada@example.com',
      site: 'expected a URL such as https://example.com/a.png',
      at: 'expected a date and time such as 2026-01-31T12:00:00Z',
      policy: 'expected one of: BLOCK_ALL, OPEN',
      flag: 'expected a boolean',
      '(body)': 'unknown field: extra',
    });
    const empty = fieldProblems(
      failureOf(schema.pick({ name: true, tags: true }), { name: '  ', tags: 'a' }),
    );
    expect(empty).toEqual([
      { field: 'name', message: 'required' },
      { field: 'tags', message: 'expected a list' },
    ]);
  });

  it('when the query or the path is invalid, then fields are prefixed query. and path. and the message says where', () => {
    const page = z.object({ limit: z.coerce.number().int().max(100) });
    const params = z.object({ id: z.string().min(5) });

    const queryError = validationErrorFrom(failureOf(page, { limit: '500' }), 'query');
    const pathError = validationErrorFrom(failureOf(params, { id: 'x' }), 'path');

    expect(queryError.details).toEqual({ fields: [{ field: 'query.limit', message: expect.any(String) }] });
    expect(queryError.message).toMatch(/^Invalid query: query\.limit: /);
    expect(pathError.details).toEqual({ fields: [{ field: 'path.id', message: expect.any(String) }] });
  });

  it('when the whole body is of the wrong type, then the field is named (body)', () => {
    const err = validationErrorFrom(failureOf(claimBody, 'a string'));

    expect(err.details).toEqual({ fields: [{ field: '(body)', message: expect.any(String) }] });
  });

  it('when the whole query is wrong, then the field is named query', () => {
    expect(fieldProblems(failureOf(z.object({}), 42), 'query')).toEqual([
      { field: 'query', message: expect.any(String) },
    ]);
  });
});
