import { idParamSchema, pageQuerySchema } from '../../src';

describe('pageQuerySchema', () => {
  it('when nothing is given, then limit is 20 and offset 0', () => {
    expect(pageQuerySchema.parse({})).toEqual({ limit: 20, offset: 0 });
  });

  it('when given as query strings within bounds, then they come back as numbers', () => {
    expect(pageQuerySchema.parse({ limit: '1', offset: '0' })).toEqual({ limit: 1, offset: 0 });
    expect(pageQuerySchema.parse({ limit: '100', offset: '250' })).toEqual({ limit: 100, offset: 250 });
  });

  it.each([
    ['limit 0', { limit: '0' }, 'limit'],
    ['limit 101', { limit: '101' }, 'limit'],
    ['a fractional limit', { limit: '2.5' }, 'limit'],
    ['a limit that is not a number', { limit: 'ten' }, 'limit'],
    ['offset -1', { offset: '-1' }, 'offset'],
    ['a fractional offset', { offset: '0.5' }, 'offset'],
  ])('when given %s, then it is refused naming that field', (_what, query, field) => {
    const result = pageQuerySchema.safeParse(query);

    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
  });
});

describe('idParamSchema', () => {
  it('when the id is empty or over 100 characters, then it is refused', () => {
    expect(idParamSchema.safeParse({ id: 'plat_x' }).success).toBe(true);
    expect(idParamSchema.safeParse({ id: '' }).success).toBe(false);
    expect(idParamSchema.safeParse({ id: 'x'.repeat(101) }).success).toBe(false);
  });
});
