import { AppError } from '@svc/errors';
import {
  arrangeImages,
  assertRejectable,
  assertVerifiable,
  checkName,
  checkVariations,
  withImage,
  withVariation,
  type Claim,
} from '../../src/domain/claim';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
  return undefined;
}

let n = 0;
const nextId = () => `img_${String(++n).padStart(16, '0')}`;

describe('name rules', () => {
  it.each([
    'Ada Lovelace',
    'José Ñúñez',
    '李小龙',
    'Владимир',
    'محمد',
    'X Æ A-12',
    'a'.repeat(200),
    '  Ada  ',
  ])('when the name is %p, then it is accepted (trimmed)', (name) => {
    expect(checkName(name)).toBe(name.trim());
  });

  it.each([
    ['empty', ''],
    ['whitespace', ' \u00a0 '],
    ['punctuation', '¿¡...!?'],
    ['201 characters', 'b'.repeat(201)],
    ['a NUL', 'Ada\u0000'],
    ['a tab', 'Ada\tLovelace'],
    ['a C1 control', 'Ada\u0085'],
  ])('when the name is %s, then INVALID_NAME', (_what, name) => {
    expect(codeOf(() => checkName(name))).toBe('INVALID_NAME');
  });

  it('when 200 characters are astral (emoji-free letters outside the BMP), then they count as characters, not code units', () => {
    expect(checkName('𝒜'.repeat(200))).toHaveLength(400);
    expect(codeOf(() => checkName('𝒜'.repeat(201)))).toBe('INVALID_NAME');
  });

  it('when variations repeat in another case, then the first spelling is kept once', () => {
    expect(checkVariations(['Ada', 'ADA', 'Lovelace', 'ada'])).toEqual(['Ada', 'Lovelace']);
    expect(withVariation(['Ada'], 'aDa')).toEqual(['Ada']);
    expect(withVariation(['Ada'], 'Countess')).toEqual(['Ada', 'Countess']);
  });

  it('when a variation is invalid, then INVALID_NAME names it', () => {
    try {
      checkVariations(['ok', '   ']);
      throw new Error('expected a failure');
    } catch (err) {
      expect((err as AppError).details).toEqual({ field: 'variations.1', reason: 'must not be empty' });
    }
  });
});

describe('reference image rules', () => {
  it('when none is marked primary, then the first is primary', () => {
    const images = arrangeImages([{ url: 'https://a/1' }, { url: 'https://a/2' }], [], nextId);
    expect(images.map((i) => i.isPrimary)).toEqual([true, false]);
  });

  it('when one is marked, then exactly that one is primary; a repeated url is kept once', () => {
    const images = arrangeImages(
      [{ url: 'https://a/1' }, { url: 'https://a/2', isPrimary: true }, { url: 'https://a/1' }],
      [],
      nextId,
    );
    expect(images.map((i) => [i.url, i.isPrimary])).toEqual([
      ['https://a/1', false],
      ['https://a/2', true],
    ]);
  });

  it('when images are replaced, then an url already on the claim keeps its id', () => {
    const existing = [{ id: 'img_keep000000000000000', url: 'https://a/1', isPrimary: true }];
    const images = arrangeImages([{ url: 'https://a/0' }, { url: 'https://a/1' }], existing, nextId);
    expect(images[1]).toEqual({ id: 'img_keep000000000000000', url: 'https://a/1', isPrimary: false });
    expect(images[0]?.isPrimary).toBe(true);
  });

  it('when a new primary is added, then the old one is demoted; a plain one leaves the primary alone', () => {
    const start = arrangeImages([{ url: 'https://a/1' }], [], nextId);
    const plain = withImage(start, { url: 'https://a/2' }, nextId);
    expect(plain.filter((i) => i.isPrimary).map((i) => i.url)).toEqual(['https://a/1']);
    const primary = withImage(plain, { url: 'https://a/3', isPrimary: true }, nextId);
    expect(primary.filter((i) => i.isPrimary).map((i) => i.url)).toEqual(['https://a/3']);
    const promoted = withImage(primary, { url: 'https://a/1', isPrimary: true }, nextId);
    expect(promoted).toHaveLength(3);
    expect(promoted.filter((i) => i.isPrimary).map((i) => i.url)).toEqual(['https://a/1']);
  });

  it('when there would be more than 20 images, then VALIDATION_ERROR', () => {
    const inputs = Array.from({ length: 21 }, (_, i) => ({ url: `https://a/${i}` }));
    expect(codeOf(() => arrangeImages(inputs, [], nextId))).toBe('VALIDATION_ERROR');
  });
});

describe('claim transitions', () => {
  const claim = (status: Claim['status']) => ({ id: 'claim_x', status }) as Claim;

  it.each([
    ['pending', undefined, undefined],
    ['verified', undefined, 'INVALID_STATE'],
    ['rejected', 'INVALID_STATE', 'INVALID_STATE'],
    ['suspended', 'INVALID_STATE', 'INVALID_STATE'],
  ] as const)('when the claim is %s, then verify → %p and reject → %p', (status, verify, reject) => {
    expect(codeOf(() => assertVerifiable(claim(status)))).toBe(verify);
    expect(codeOf(() => assertRejectable(claim(status)))).toBe(reject);
  });
});
