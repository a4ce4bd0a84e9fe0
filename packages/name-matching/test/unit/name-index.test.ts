import { editDistance, NameIndex, MATCH_THRESHOLDS, type EnforcementLevel } from '../../src';

function buildIndex(): NameIndex {
  const index = new NameIndex();
  index.add({ id: 'claim_taylor', names: ['Taylor Swift', 'Tay Swift'] });
  index.add({ id: 'claim_beyonce', names: ['Beyoncé Knowles', 'Beyoncé', 'Queen Bey'] });
  index.add({ id: 'claim_arnold', names: ['Arnold Schwarzenegger'] });
  index.add({ id: 'claim_shakira', names: ['Shakira'] });
  return index;
}

const moderate = { enforcement: 'MODERATE' } as const;

/** Two names that are a title before one name ("Lady Gaga", "Dr. Dre"), beside someone else. */
function titledIndex(): NameIndex {
  const index = new NameIndex();
  index.add({ id: 'claim_ladygaga', names: ['Lady Gaga'] });
  index.add({ id: 'claim_drdre', names: ['Dr. Dre'] });
  index.add({ id: 'claim_other', names: ['Gemma Lawson'] });
  return index;
}

/** Every query matches `identityId` at MODERATE (null: nothing); a failure names the query. */
function expectEach(index: NameIndex, queries: string[], identityId: string | null): void {
  for (const query of queries)
    expect([query, index.match(query, moderate)?.identityId ?? null]).toEqual([query, identityId]);
}

describe('NameIndex layers', () => {
  const index = buildIndex();

  it('when the name is the primary name after normalisation, then it is an exact match (layer 1)', () => {
    for (const query of ['taylor swift', 'TaylorSwift', 'T4yl0r Sw1ft', 'Ms. Taylor Swift', 'TAYLOR-SWIFT']) {
      expect(index.match(query, moderate)).toEqual({
        identityId: 'claim_taylor',
        matchedName: 'Taylor Swift',
        confidence: 1,
        layer: 1,
        classification: 'EXACT_MATCH',
      });
    }
  });

  it('when the name is a registered variation, then it is a variation match (layer 2)', () => {
    expect(index.match('Queen Bey', moderate)).toMatchObject({
      identityId: 'claim_beyonce',
      matchedName: 'Queen Bey',
      layer: 2,
      classification: 'VARIATION_MATCH',
      confidence: 0.97,
    });
  });

  it('when a word has a typo, a swap, a missing or a doubled letter, then it is a fuzzy match (layer 3)', () => {
    for (const query of ['Taylr Swift', 'Tyalor Swift', 'Taylor Swiift', 'Taylor Swigt', 'TaylorSwfit']) {
      const result = index.match(query, moderate);
      expect(result).toMatchObject({ identityId: 'claim_taylor', layer: 3, classification: 'FUZZY_MATCH' });
      expect(result?.confidence).toBeLessThan(1);
    }
    expect(editDistance('taylor', 'tyalor')).toBe(1);
  });

  it('when a word sounds the same but is spelled further off, then it is a phonetic match (layer 4)', () => {
    expect(index.match('Tyler Swift', moderate)).toMatchObject({
      identityId: 'claim_taylor',
      layer: 4,
      classification: 'PHONETIC_MATCH',
    });
    expect(index.match('Arnold Schwarzenneger', moderate)).toMatchObject({
      identityId: 'claim_arnold',
      layer: 4,
    });
  });

  it('when only part of a protected name is given, then it does not match', () => {
    expect(index.bestMatch('Taylor')).toBeNull();
    expect(index.bestMatch('Swift')).toBeNull();
    expect(index.bestMatch('Shakira Smith')).toBeNull();
  });

  it('when another person shares one word, then it does not match', () => {
    for (const query of ['Jonathan Swift', 'Taylor Smith', 'Taylor Lautner', 'Arnold Palmer']) {
      expect(index.match(query, { enforcement: 'STRICT' })).toBeNull();
    }
  });

  it('when the words are swapped or a middle name is added, then it matches at reduced confidence', () => {
    expect(index.match('Swift Taylor', moderate)).toMatchObject({ layer: 3, confidence: 0.9 });
    expect(index.match('Taylor Alison Swift', moderate)).toMatchObject({ layer: 3, confidence: 0.9 });
  });

  it('when an identity is removed or replaced, then its names no longer match', () => {
    const local = buildIndex();
    local.remove('claim_taylor');
    expect(local.bestMatch('Taylor Swift')).toBeNull();
    expect(local.size).toBe(3);
    local.add({ id: 'claim_beyonce', names: ['Beyoncé Giselle'] });
    expect(local.bestMatch('Queen Bey')).toBeNull();
    expect(local.match('Beyonce Giselle', moderate)?.identityId).toBe('claim_beyonce');
    local.remove('claim_unknown');
    expect(local.size).toBe(3);
  });
});

describe('NameIndex confidence and thresholds', () => {
  const index = buildIndex();
  const queries = [
    'Taylr Swift',
    'Tyler Swift',
    'Shakria',
    'Shakir',
    'Swift Taylor',
    'Bey0nce',
    'Arnold Schwarzeneger',
  ];

  it('when the same name is checked again or on another index, then the result is identical', () => {
    const other = buildIndex();
    for (const query of queries) {
      expect(index.bestMatch(query)).toEqual(index.bestMatch(query));
      expect(other.bestMatch(query)).toEqual(index.bestMatch(query));
    }
  });

  it('when the enforcement level is stricter, then the threshold is lower', () => {
    expect(MATCH_THRESHOLDS.STRICT).toBeLessThan(MATCH_THRESHOLDS.MODERATE);
    expect(MATCH_THRESHOLDS.MODERATE).toBeLessThan(MATCH_THRESHOLDS.RELAXED);
  });

  it('when MODERATE accepts a name, then STRICT accepts it and RELAXED accepts a subset', () => {
    const accepted = (enforcement: EnforcementLevel) =>
      queries.filter((query) => index.match(query, { enforcement }) !== null);
    const strict = accepted('STRICT');
    const moderateHits = accepted('MODERATE');
    const relaxed = accepted('RELAXED');
    expect(moderateHits.every((q) => strict.includes(q))).toBe(true);
    expect(relaxed.every((q) => moderateHits.includes(q))).toBe(true);
    expect(relaxed.length).toBeLessThan(strict.length);
  });

  it('when a protected name is a title before one name, then a typo in the title or the name is still caught', () => {
    const index = titledIndex();
    expectEach(
      index,
      ['Lady Gaga', 'Gaga', 'Laady Gaga', 'Lady Gagaa', 'LadyGaga', 'Zysaidar Laady Gaga AI Companion'],
      'claim_ladygaga',
    );
    expectEach(index, ['Dr Dre', 'Doctor Dre', 'Dr Dree', 'Drr Dre'], 'claim_drdre');
    // Someone else with the same title is not the protected one.
    expectEach(index, ['Lady Smith', 'Lady Jane', 'Dr. Gray', 'Dr Drew Smith'], null);
  });

  it('when a titled name with a typo has generic words around it, then it is still caught, and other titled names are not', () => {
    const index = titledIndex();
    expectEach(
      index,
      [
        'Lady Ggaa_official',
        'Lady Gagaa_official',
        'Lady Gagaa AI',
        'The Real Lady Gagaa',
        'Laady Gaga (official)',
        'Lady Ggaa AI Companion',
      ],
      'claim_ladygaga',
    );
    expectEach(index, ['Dr Dree official', 'The Real Dr Der', 'Drr Dre AI'], 'claim_drdre');
    expectEach(
      index,
      ['Lady Smith official', 'Lady Jane AI', 'The Real Dr. Gray', 'Dr Drew Smith AI', 'Lady Gemma official'],
      null,
    );
  });

  it('when a one-word name has a typo in a short word, then only STRICT matches it', () => {
    const small = new NameIndex();
    small.add({ id: 'claim_gaga', names: ['Gaga'] });
    expect(small.match('Gaga', { enforcement: 'RELAXED' })?.layer).toBe(1);
    expect(small.match('Gala', { enforcement: 'STRICT' })?.identityId).toBe('claim_gaga');
    expect(small.match('Gala', moderate)).toBeNull();
  });
});

describe('NameIndex middle words left out (docs/spec/contracts.md §15)', () => {
  const index = new NameIndex();
  index.add({ id: 'claim_hopper', names: ['Grace Brewster Hopper'] });
  index.add({ id: 'claim_zeta', names: ['Catherine Zeta-Jones'] });
  index.add({ id: 'claim_nusrat', names: ['Nusrat Fateh Ali Khan'] });

  it('when a name leaves out the middle words of a protected name of three or more words, then STRICT and MODERATE match it with a lower confidence than the full name', () => {
    const full = index.match('Grace Brewster Hopper', moderate);
    for (const enforcement of ['STRICT', 'MODERATE'] as const) {
      const result = index.match('Grace Hopper', { enforcement });
      expect(result).toMatchObject({ identityId: 'claim_hopper', layer: 3, classification: 'FUZZY_MATCH' });
      expect(result?.confidence).toBeLessThan(full?.confidence ?? 0);
    }
    expect(index.match('Grace Hopper', { enforcement: 'RELAXED' })).toBeNull();
    expectEach(
      index,
      ['grace hopper', 'GraceHopper', 'Grace Hopper AI', 'The Real Grace Hopper'],
      'claim_hopper',
    );
    expectEach(index, ['Nusrat Khan', 'Nusrat Ali Khan', 'Nusrat Fateh Khan'], 'claim_nusrat');
  });

  it('when two people share the first and last name around another middle name, or a double-barrelled name loses a half, then it does not match', () => {
    for (const query of [
      'Grace Elizabeth Hopper',
      'Grace Murray Hopper',
      'Catherine Jones',
      'Nusrat Ahmed Khan',
    ]) {
      expect([query, index.match(query, { enforcement: 'STRICT' })]).toEqual([query, null]);
    }
  });
});

describe('NameIndex evidence: how distinctive the matching words are', () => {
  const index = new NameIndex();
  index.add({ id: 'claim_lopez', names: ['Jennifer Lopez'] });
  index.add({ id: 'claim_tanaka', names: ['Kenji Tanaka'] });
  index.add({ id: 'claim_zhang', names: ['Zhang Wei'] });
  index.add({ id: 'claim_salah', names: ['Mohamed Salah'] });
  index.add({ id: 'claim_taylor', names: ['Taylor Swift'] });

  it('when another known name stands two edits from a protected word beside a common one, then it is another person', () => {
    // Two letters off a common family or given name, or one syllable off a given name.
    expectEach(index, ['Jennifer Perez', 'Jennifer Gomez', 'Kenta Tanaka', 'Mohamed Salem'], null);
    // Only a very common family name shared, the other word one letter off a short one.
    expectEach(index, ['Zhang Wen', 'Zhang Li', 'Li Zhang'], null);
  });

  it('when the same names carry a typo or a spelling of the same sound, then they still match', () => {
    expectEach(index, ['Jenifer Lopez', 'Jennifer Lopes', 'Jenniffer Lopz'], 'claim_lopez');
    expectEach(index, ['Kenji Tanaak', 'Kenjii Tanaka'], 'claim_tanaka');
    expectEach(index, ['Mohammed Salah', 'Mohamed Sallah'], 'claim_salah');
    expectEach(index, ['Tyler Swift', 'Taylor Swfit', 'Taylor Swiift'], 'claim_taylor');
    expectEach(index, ['Wei Zhang', 'Zhang Wei'], 'claim_zhang');
  });

  it('when a word is held by many protected names, then it counts as common like a listed name', () => {
    const rare = new NameIndex();
    rare.add({ id: 'claim_tam', names: ['Zubrowka Tam'] });
    expect(rare.match('Zubrowka Tym', { enforcement: 'STRICT' })?.identityId).toBe('claim_tam');
    // Zubrowka is on no list; held by 60 protected names, it says little about who is named.
    const given = ['Ada', 'Bruno', 'Clara', 'Dario', 'Elsa', 'Fritz'];
    for (let i = 0; i < 60; i++) {
      rare.add({
        id: `claim_other${i}`,
        names: [`${given[i % 6] ?? ''}${'x'.repeat(1 + (i % 10))} Zubrowka`],
      });
    }
    expect(rare.match('Zubrowka Tym', { enforcement: 'STRICT' })).toBeNull();
  });
});
