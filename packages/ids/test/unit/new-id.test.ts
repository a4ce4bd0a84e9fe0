import { ID_PREFIXES, isId, newId } from '../../src';

const BASE62 = /^[0-9A-Za-z]+$/;

describe('newId', () => {
  it('when the prefixes are listed, then every prefix of docs/spec/contracts.md §7 is there', () => {
    const contract = [
      'claim',
      'box',
      'lic',
      'req',
      'viol',
      'gp',
      'appeal',
      'img',
      'plat',
      'key',
      'av',
      'we',
      'evt',
      'del',
    ];

    expect(ID_PREFIXES).toEqual(expect.arrayContaining(contract));
  });

  it.each(ID_PREFIXES.map((prefix) => [prefix]))(
    'when an id is made with prefix %s, then it is the prefix, an underscore and at least 16 base62 characters',
    (prefix) => {
      const id = newId(prefix);
      const random = id.slice(prefix.length + 1);

      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(random.length).toBeGreaterThanOrEqual(16);
      expect(random).toMatch(BASE62);
      expect(isId(id, prefix)).toBe(true);
    },
  );

  it('when 10,000 ids are made, then no two are equal', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('evt')));

    expect(ids.size).toBe(10_000);
  });
});

describe('isId', () => {
  const random16 = 'aB3dE5gH7jK9mN1p';

  it('when the prefix and 16 to 64 base62 characters match, then it is an id', () => {
    expect(isId(`plat_${random16}`, 'plat')).toBe(true);
    expect(isId(`key_${'Z'.repeat(64)}`, 'key')).toBe(true);
  });

  it.each([
    ['another prefix', `key_${random16}`],
    ['15 characters', `plat_${random16.slice(1)}`],
    ['65 characters', `plat_${'a'.repeat(65)}`],
    ['a dash inside', `plat_${random16.slice(0, 8)}-${random16.slice(8)}`],
    ['an underscore inside', `plat_${random16}_x`],
    ['no underscore', `plat${random16}`],
    ['a longer prefix that starts the same', `platform_${random16}`],
    ['leading text', ` plat_${random16}`],
    ['a trailing newline', `plat_${random16}\n`],
    ['the prefix only', 'plat_'],
  ])('when the value has %s, then it is not a plat id', (_what, value) => {
    expect(isId(value, 'plat')).toBe(false);
  });

  it('when the value is not a string, then it is not an id', () => {
    expect(isId(undefined, 'plat')).toBe(false);
    expect(isId(42, 'plat')).toBe(false);
    expect(isId({ id: `plat_${random16}` }, 'plat')).toBe(false);
  });

  it('when the prefix is short and another is longer, then each id passes only its own check', () => {
    const avatar = newId('av');
    const appeal = newId('appeal');

    expect(isId(avatar, 'av')).toBe(true);
    expect(isId(appeal, 'av')).toBe(false);
    expect(isId(avatar, 'appeal')).toBe(false);
  });
});
