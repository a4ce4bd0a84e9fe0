import { nameKeyOf, nameKeysOf } from '../../src/data-access/name-keys';

// The form in which two accounts' names are the same identity (docs/adr/0033): exact but for case,
// spacing, dots, quotes and hyphens; near-misses stay apart (detection's fuzzy matching is for avatars).
describe('name keys', () => {
  it('when names differ only in case, spacing, dots, quotes or hyphens, then they share a key; other names do not', () => {
    expect(nameKeyOf('  Ada   LOVELACE ')).toBe('ada lovelace');
    expect(nameKeyOf('J.K. Rowling')).toBe(nameKeyOf('JK rowling'));
    expect(nameKeyOf('Jean-Luc Picard')).toBe(nameKeyOf('jean luc picard'));
    expect(nameKeyOf('O’Brien, Conan')).toBe(nameKeyOf("O'Brien Conan"));
    expect(nameKeyOf('ｌｏｖｅｌａｃｅ')).toBe('lovelace');
    expect(nameKeyOf('Ada Lovelock')).not.toBe(nameKeyOf('Ada Lovelace'));
  });

  it('when a claim has variations, then each is a key, once', () => {
    expect(
      nameKeysOf({
        name: 'Ada Lovelace',
        variations: ['Countess of Lovelace', 'ada lovelace', 'A. Lovelace'],
      }),
    ).toEqual(['ada lovelace', 'countess of lovelace', 'a lovelace']);
  });
});
