import { secondFamilyRequestBodySchema } from '../../src/licensing';

// The cluster fuzz found a 500: an identity_id with a NUL reached PostgreSQL through the read-through.
describe('POST /licensing/request body', () => {
  const body = {
    identity_id: 'box_4eC39HqLyjWDarjtT1zdp7dc',
    use_type: 'avatar',
    platform_description: 'Avatar chat',
    expected_usage: '1,000 users',
  };

  it('when identity_id is an id, then the body is accepted', () => {
    expect(secondFamilyRequestBodySchema.safeParse(body).success).toBe(true);
  });

  it('when identity_id holds a NUL or a space, then it is refused as an id, naming the field', () => {
    for (const identity_id of ['a\u0000b', 'box 1']) {
      const parsed = secondFamilyRequestBodySchema.safeParse({ ...body, identity_id });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['identity_id']);
    }
  });
});
