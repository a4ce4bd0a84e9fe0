import fc from 'fast-check';
import { avatarMatchKeys, identityMatchKeys, NameIndex, type SearchMode } from '../../src';
import { buildLabelledSet } from '../fixtures/labelled-names';
import { PROTECTED_IDENTITIES } from '../fixtures/protected-identities';

// A box's initial scan asks detection only about avatars whose match keys meet its identity's
// (issue #34). That is sound only if a search never finds a name whose identity's keys the
// query's keys miss: checked here on every labelled name, on random typos, wrappers, run-together
// and hyphenated words, and on descriptions, against every identity the search scores.

const set = buildLabelledSet();
const index = new NameIndex();
for (const identity of set.identities) index.add(identity);
const words = [...new Set(PROTECTED_IDENTITIES.flatMap((i) => i.names.join(' ').split(/\s+/)))];
let seed = 11;
const next = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed;
};
// Other people made of the same words: many names share each word, as at scale.
for (let i = 0; i < 1000; i++) {
  const name = Array.from({ length: 1 + (next() % 3) }, () => words[next() % words.length]).join(' ');
  index.add({ id: `claim_other${i}`, names: [name, `${name}-${words[next() % words.length]}`] });
}
const identityIds = [
  ...set.identities.map((i) => i.id),
  ...Array.from({ length: 1000 }, (_, i) => `claim_other${i}`),
];
const keysOf = new Map(identityIds.map((id) => [id, new Set(identityMatchKeys(index, id))]));

function meets(avatarKeys: number[], identityKeys: Set<number>): boolean {
  return avatarKeys.some((k) => identityKeys.has(k));
}

/** Every identity a search of `text` scores (nothing accepted: every candidate is scored). */
function scored(text: string, mode: SearchMode): Set<string> {
  const found = new Set<string>();
  index.search(
    text,
    (result) => {
      found.add(result.identityId);
      return false;
    },
    mode,
  );
  return found;
}

/** The identities a search finds whose keys the avatar's keys miss (must be none). */
function missed(name: string, description?: string): string[] {
  const keys = avatarMatchKeys(name, description);
  const found = scored(name, 'name');
  if (description !== undefined) for (const id of scored(description, 'description')) found.add(id);
  return [...found].filter((id) => !meets(keys, keysOf.get(id) ?? new Set()));
}

describe('match keys (a box scan asks only about avatars whose keys meet its identity)', () => {
  it('when every labelled name is searched, then every identity it scores shares a key with it, and most identities do not', () => {
    let pairs = 0;
    let meeting = 0;
    for (const item of [...set.positives, ...set.negatives]) {
      const asDescription = item.field === 'description';
      const name = asDescription ? 'someone' : item.query;
      const description = asDescription ? item.query : undefined;
      expect({ query: item.query, missed: missed(name, description) }).toEqual({
        query: item.query,
        missed: [],
      });
      const keys = avatarMatchKeys(name, description);
      for (const id of identityIds.slice(0, 400)) {
        pairs++;
        if (meets(keys, keysOf.get(id) ?? new Set())) meeting++;
      }
    }
    // The filter is worth having: a scan asks about a small share of the avatars.
    expect(meeting / pairs).toBeLessThan(0.05);
  });

  it('when the found identity is what the scan of its box answers, then the avatar is among those it asks about', () => {
    for (const item of set.positives) {
      if (item.expected === null || item.field === 'description') continue;
      const outcome = index.searchIdentity(item.query, item.expected);
      if (outcome.best === null) continue;
      expect(meets(avatarMatchKeys(item.query), keysOf.get(item.expected) ?? new Set())).toBe(true);
    }
  });

  it('when random words with typos, wrappers, hyphens and run-together words are searched as names and descriptions, then no scored identity is missed', () => {
    const typo = (w: string, at: number, kind: number): string => {
      const i = at % Math.max(w.length, 1);
      if (kind === 0) return w.slice(0, i) + w.slice(i + 1);
      if (kind === 1) return w.slice(0, i) + 'e' + w.slice(i);
      if (kind === 2) return w.slice(0, i) + 'x' + w.slice(i + 1);
      if (kind === 3) return w.slice(0, i) + (w[i + 1] ?? '') + (w[i] ?? '') + w.slice(i + 2);
      return w.slice(0, i) + 'ph' + w.slice(i + 1);
    };
    const text = fc
      .record({
        parts: fc.array(
          fc.record({
            word: fc.oneof(
              fc.constantFrom(...words),
              fc.constantFrom('AI', 'The', 'Real', 'official', 'fan', 'x'),
            ),
            edit: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 4 })), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        separator: fc.constantFrom(' ', '', '-', '_', '. '),
      })
      .map(({ parts, separator }) =>
        parts.map((p) => (p.edit ? typo(p.word, p.edit[0], p.edit[1]) : p.word)).join(separator),
      );
    fc.assert(
      fc.property(text, fc.option(text, { nil: undefined }), (name, description) => {
        expect(missed(name, description)).toEqual([]);
      }),
      { numRuns: 1500, seed: 20261130 },
    );
  });

  it('when an avatar has no name words in common with an identity, then their keys do not meet', () => {
    const solo = new NameIndex();
    solo.add({ id: 'claim_a', names: ['Taylor Swift', 'Tay Swift'] });
    const keys = new Set(identityMatchKeys(solo, 'claim_a'));
    expect(meets(avatarMatchKeys('Quentin Blackwood'), keys)).toBe(false);
    expect(meets(avatarMatchKeys('Tailor Swfit'), keys)).toBe(true);
    expect(meets(avatarMatchKeys('TaylorSwift'), keys)).toBe(true);
    expect(meets(avatarMatchKeys('Someone', 'a song in the style of taylor swift'), keys)).toBe(true);
    // Alike only by sound: no one-deletion key in common.
    solo.add({ id: 'claim_b', names: ['Katherine'] });
    expect(meets(avatarMatchKeys('Cathryn'), new Set(identityMatchKeys(solo, 'claim_b')))).toBe(true);
    expect(identityMatchKeys(solo, 'claim_unknown')).toEqual([]);
  });
});
