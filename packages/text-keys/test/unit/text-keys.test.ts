import { levenshtein, metaphoneCodes, toAscii } from '../../src';

describe('text keys', () => {
  it('when a name has accents or another script, then toAscii transliterates it', () => {
    expect(toAscii('Björk Guðmundsdóttir')).toBe('Bjork Gudmundsdottir');
    expect(toAscii('Тейлор')).toBe('Teylor');
  });

  it('when two words sound alike, then they share a Double Metaphone code', () => {
    expect(metaphoneCodes('taylor')[0]).toBe(metaphoneCodes('tailor')[0]);
    expect(metaphoneCodes('swift')[0]).not.toBe(metaphoneCodes('smith')[0]);
  });

  it('when two words differ by one letter, then their Levenshtein distance is 1', () => {
    expect(levenshtein('swift', 'swfit')).toBe(2);
    expect(levenshtein('taylor', 'tayler')).toBe(1);
    expect(levenshtein('', 'abc')).toBe(3);
  });
});
