import fc from 'fast-check';
import { NameIndex, type SearchMode, type MatchResult } from '../../src';
import { buildLabelledSet } from '../fixtures/labelled-names';
import { PROTECTED_IDENTITIES } from '../fixtures/protected-identities';

// Ranking candidates before scoring them (ADR 0007) is an optimisation only: every answer, the
// best accepted match and the best score of any candidate, must be what scoring them all gives.

const set = buildLabelledSet();
/**
 * Short words one edit from the wrappers a query may carry ("AI", "The", "Real", "fan", "x"): a
 * name's word near a query word that leads to no candidate must still count in its bound. Each
 * closer word comes after a farther one ("Tho" 0.914, then "Thea" 0.925 for "Lynn the"), so a
 * bound that counted them as far would stop at the first and miss the better one.
 */
const NEAR_WRAPPERS = ['Kai', 'Mai', 'Tho', 'Thea', 'Rea', 'Reel', 'Fen', 'Fan', 'Xi', 'Ox'];
/** Names whose shape does not fit in 16 bits (over 7 words, or over 63 letters): bounded from the full shape. */
const LONG_NAMES = [
  'Maria del Carmen de la Santisima Trinidad Fernandez',
  'Wolfgangamadeusmozartsalzburgkomponist Hieronymusbergersonsteinmeier',
];
const words = [
  ...new Set(
    [...PROTECTED_IDENTITIES.map((i) => i.names), [NEAR_WRAPPERS], [LONG_NAMES]].flatMap((names) =>
      names.join(' ').split(/\s+/),
    ),
  ),
];

/**
 * The protected identities, and others made of their words (so many names share each word).
 * `packAt`: the word tables are packed after that many other names (ADR 0007), and the rest is
 * added after, in chains, some of it replacing names packed before.
 */
function buildIndex(packAt?: number): NameIndex {
  const index = new NameIndex();
  for (const identity of PROTECTED_IDENTITIES) index.add(identity);
  LONG_NAMES.forEach((name, i) => index.add({ id: `claim_long${i}`, names: [name] }));
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  for (let i = 0; i < 1000; i++) {
    if (i === packAt) index.pack();
    const name = Array.from({ length: 1 + (next() % 3) }, () => words[next() % words.length]).join(' ');
    const id =
      packAt !== undefined && i > packAt && i % 5 === 0 ? `claim_other${i - packAt}` : `claim_other${i}`;
    index.add({ id, names: [name] });
  }
  return index;
}

let index = buildIndex();

const ACCEPTS: [string, ((r: MatchResult) => boolean) | undefined, number][] = [
  ['anything', undefined, 0],
  ['MODERATE and up', (r) => r.confidence >= 0.78, 0.78],
  ['one identity in two, STRICT and up', (r) => r.identityId.length % 2 === 0 && r.confidence >= 0.7, 0.7],
];

function compare(query: string, mode: SearchMode): { ranked: number; unranked: number } {
  let ranked = 0;
  let unranked = 0;
  for (const [, accept, acceptsFrom] of ACCEPTS) {
    index.rankCandidates = false;
    const before = index.work.candidatesScored;
    const all = index.search(query, accept, mode, acceptsFrom);
    unranked += index.work.candidatesScored - before;
    index.rankCandidates = true;
    const middle = index.work.candidatesScored;
    expect({ query, mode, outcome: index.search(query, accept, mode, acceptsFrom) }).toEqual({
      query,
      mode,
      outcome: all,
    });
    ranked += index.work.candidatesScored - middle;
  }
  return { ranked, unranked };
}

describe.each([
  ['its word tables in chains', undefined],
  ['its word tables packed, then names added and replaced', 600],
])('NameIndex candidate ranking, %s', (_label, packAt) => {
  beforeAll(() => {
    index = buildIndex(packAt);
  });

  it('when candidates are ranked before scoring, then every labelled name gets the answer scoring them all gives, with fewer names scored', () => {
    let ranked = 0;
    let unranked = 0;
    for (const item of [...set.positives, ...set.negatives]) {
      const work = compare(item.query, item.field ?? 'name');
      ranked += work.ranked;
      unranked += work.unranked;
    }
    // Here many names share the query's words and most labelled names are negatives (a low best
    // score prunes little); at scale the saving is far larger (bench/detection/name-index.bench.ts).
    expect(ranked).toBeLessThan(unranked);
  });

  it('when a name has a short word one edit from a wrapper the query carries ("Lynn Kai" for "Lynn AI"), then ranked and unranked answers are the same', () => {
    const wrapped = new NameIndex();
    for (const identity of PROTECTED_IDENTITIES) wrapped.add(identity);
    const firstWords = words.filter((w) => w.length >= 4).slice(0, 30);
    firstWords.forEach((word, i) =>
      NEAR_WRAPPERS.forEach((near, j) =>
        wrapped.add({ id: `claim_near${i}_${j}`, names: [`${word} ${near}`] }),
      ),
    );
    const saved = index;
    index = wrapped;
    try {
      for (const word of firstWords) {
        for (const query of [
          `${word} AI`,
          `${word} the`,
          `${word} real`,
          `${word} fan`,
          `${word} x`,
          `The ${word}`,
          `Real ${word} AI`,
        ]) {
          compare(query, 'name');
        }
      }
    } finally {
      index = saved;
    }
  });

  it('when random words, typos and wrappers are checked, then ranked and unranked answers are the same', () => {
    const typo = (w: string, at: number, kind: number): string => {
      const i = at % Math.max(w.length, 1);
      if (kind === 0) return w.slice(0, i) + w.slice(i + 1);
      if (kind === 1) return w.slice(0, i) + 'e' + w.slice(i);
      if (kind === 2) return w.slice(0, i) + 'x' + w.slice(i + 1);
      return w.slice(0, i) + (w[i + 1] ?? '') + (w[i] ?? '') + w.slice(i + 2);
    };
    const query = fc
      .array(
        fc.record({
          word: fc.oneof(
            fc.constantFrom(...words),
            fc.constantFrom('AI', 'The', 'Real', 'official', 'fan', 'x'),
          ),
          edit: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { nil: undefined }),
        }),
        { minLength: 1, maxLength: 5 },
      )
      .map((parts) => parts.map((p) => (p.edit ? typo(p.word, p.edit[0], p.edit[1]) : p.word)).join(' '));
    fc.assert(
      fc.property(query, fc.constantFrom<SearchMode>('name', 'description'), (q, mode) => {
        compare(q, mode);
      }),
      { numRuns: 400, seed: 20261126 },
    );
  });
});
