import { confusablesOf } from '@svc/text-keys';
import { normaliseName } from '../../src';

const firstReading = (raw: string) => normaliseName(raw)[0];

describe('normaliseName', () => {
  it('when a name differs only in case, accents or punctuation, then it reads the same', () => {
    expect(firstReading('Beyoncé Knowles')).toEqual({
      tokens: ['beyonce', 'knowles'],
      compact: 'beyonceknowles',
    });
    expect(firstReading('BEYONCE  knowles!')?.tokens).toEqual(['beyonce', 'knowles']);
    expect(firstReading("Lupita Nyong'o")?.tokens).toEqual(['lupita', 'nyongo']);
    expect(firstReading('Catherine Zeta-Jones')?.tokens).toEqual(['catherine', 'zeta', 'jones']);
  });

  it('when a name is in another script or uses look-alike letters, then it is transliterated', () => {
    expect(firstReading('Łukasz Piszczek')?.compact).toBe('lukaszpiszczek');
    expect(firstReading('Björk Guðmundsdóttir')?.compact).toBe('bjorkgudmundsdottir');
    expect(firstReading('Тaylor Swift')?.compact).toBe('taylorswift'); // Cyrillic Т
    expect(firstReading('ｔａｙｌｏｒ ｓｗｉｆｔ')?.compact).toBe('taylorswift'); // full-width
  });

  it('when digits or symbols stand for letters, then they are read as letters, a 1 both as i and l', () => {
    expect(firstReading('T4yl0r $wift')?.compact).toBe('taylorswift');
    expect(normaliseName('Sw1ft').map((r) => r.compact)).toEqual(['swift', 'swlft']);
    expect(firstReading('@T4ylor Swift!!')?.compact).toBe('taylorswift');
    expect(firstReading('Br!tney Spe4rs')?.compact).toBe('britneyspears');
    expect(firstReading('50 Cent')?.tokens).toEqual(['50', 'cent']);
  });

  it('when a name carries an honorific or is spelled out letter by letter, then only the name is kept', () => {
    expect(firstReading('Dr. Taylor Swift')?.tokens).toEqual(['taylor', 'swift']);
    expect(firstReading('Sir Elton John')?.tokens).toEqual(['elton', 'john']);
    expect(firstReading('T a y l o r  S w i f t')?.tokens).toEqual(['taylorswift']);
    expect(firstReading('Dr')?.tokens).toEqual(['dr']);
  });

  it('when a title stands before a single name, then the name is also read with its title, after the reading without', () => {
    expect(normaliseName('Lady Gaga').map((r) => r.tokens)).toEqual([['gaga'], ['lady', 'gaga']]);
    expect(normaliseName('Dr. Dre').map((r) => r.tokens)).toEqual([['dre'], ['dr', 'dre']]);
    // Two names left after the title: the title says nothing about who is named.
    expect(normaliseName('Sir Elton John').map((r) => r.tokens)).toEqual([['elton', 'john']]);
    expect(normaliseName('Dr')).toEqual([{ tokens: ['dr'], compact: 'dr' }]);
    // Generic words around the single name do not make it two names.
    expect(normaliseName('The Real Lady Gagaa AI').map((r) => r.tokens)).toEqual([
      ['the', 'real', 'gagaa', 'ai'],
      ['the', 'real', 'lady', 'gagaa', 'ai'],
    ]);
    expect(normaliseName('Lady Jane Smith official').map((r) => r.tokens)).toEqual([
      ['jane', 'smith', 'official'],
    ]);
  });

  it('when a name has nothing to read, then there is no reading', () => {
    expect(normaliseName(' -- ')).toEqual([]);
  });
});

describe("normaliseName on Unicode's confusables list", () => {
  const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

  it('when a letter of a name is replaced by any character the list gives as its look-alike, then the name reads the same', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const letter of LETTERS) {
      for (const lookAlike of confusablesOf(letter)) {
        // The list maps capital look-alikes of I to l; in a name they are an i.
        const expected = letter === 'l' && lookAlike.toLowerCase() !== lookAlike ? 'i' : letter.toLowerCase();
        const compact = normaliseName(`Swa${lookAlike}ton`)[0]?.compact;
        checked++;
        if (compact !== `swa${expected}ton`)
          failures.push(
            `${lookAlike} (U+${lookAlike.codePointAt(0)?.toString(16)}) for ${letter}: ${compact}`,
          );
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  });

  it('when a capital Cyrillic letter stands in for a Latin one, then it is read as that letter', () => {
    expect(normaliseName('ХAVIER ВАRDEM')[0]?.compact).toBe('xavierbardem'); // Cyrillic Х, В, А
    expect(normaliseName('Іvan Ѕmith')[0]?.compact).toBe('ivansmith'); // Cyrillic І, Ѕ
  });
});
