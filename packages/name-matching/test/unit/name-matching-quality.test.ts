import { NameIndex, MATCH_THRESHOLDS, type EnforcementLevel } from '../../src';
import { buildLabelledSet, type Disguise, type LabelledName } from '../fixtures/labelled-names';

interface Tally {
  positives: number;
  truePositives: number;
  falsePositives: number;
  negatives: number;
  /** Caught and wrongly matched at the other two levels (reported, not asserted). */
  strictCaught: number;
  strictFalse: number;
  relaxedCaught: number;
  relaxedFalse: number;
}

const ratio = (a: number, b: number): number => (b === 0 ? 1 : a / b);

/**
 * Recall and precision of the engine at MODERATE on the labelled set, overall and per disguise
 * (issue "Names: recall kept, precision back": recall >= 0.98 and precision >= 0.995), with
 * STRICT and RELAXED reported beside them.
 */
describe('name matching quality on the labelled set', () => {
  const set = buildLabelledSet();
  const index = new NameIndex();
  for (const identity of set.identities) index.add(identity);

  const outcome = (item: LabelledName, enforcement: EnforcementLevel = 'MODERATE') => {
    const best = index.search(item.query, undefined, item.field ?? 'name').best;
    return best && best.confidence >= MATCH_THRESHOLDS[enforcement] ? best : null;
  };

  it('when the labelled set is built, then every disguise has positives and hard negatives beside it', () => {
    expect(set.identities.length).toBeGreaterThanOrEqual(150);
    expect(set.positives.length).toBeGreaterThanOrEqual(1000);
    expect(set.negatives.length).toBeGreaterThanOrEqual(1500);
    for (const disguise of ['twoEdits', 'wrapped', 'confusables', 'description'] as const) {
      expect(set.positives.filter((p) => p.disguise === disguise).length).toBeGreaterThanOrEqual(100);
      expect(set.negatives.filter((n) => n.disguise === disguise).length).toBeGreaterThanOrEqual(100);
    }
    // The hard negatives, of many origins, and the names with middle words left out.
    const kinds = (kind: string) => set.negatives.filter((n) => n.kind === kind).length;
    expect(kinds('sameGivenNameFamilyTwoEditsOff')).toBeGreaterThanOrEqual(30);
    expect(kinds('givenNameOneSyllableOff')).toBeGreaterThanOrEqual(10);
    expect(kinds('commonNameShared')).toBeGreaterThanOrEqual(30);
    expect(kinds('otherMiddleName')).toBeGreaterThanOrEqual(30);
    expect(set.positives.filter((p) => p.disguise === 'middleWordsLeftOut').length).toBeGreaterThanOrEqual(
      50,
    );
  });

  it('when every query is checked at MODERATE, then recall >= 0.98 and precision >= 0.995, overall and per disguise', () => {
    const tallies = new Map<Disguise | 'overall', Tally>();
    const tally = (key: Disguise | 'overall'): Tally => {
      let t = tallies.get(key);
      if (!t) {
        t = {
          positives: 0,
          truePositives: 0,
          falsePositives: 0,
          negatives: 0,
          strictCaught: 0,
          strictFalse: 0,
          relaxedCaught: 0,
          relaxedFalse: 0,
        };
        tallies.set(key, t);
      }
      return t;
    };
    const missed: string[] = [];
    const wrong: string[] = [];
    for (const item of set.positives) {
      const result = outcome(item);
      const strict = outcome(item, 'STRICT');
      const relaxed = outcome(item, 'RELAXED');
      for (const t of [tally(item.disguise), tally('overall')]) {
        t.positives++;
        if (result?.identityId === item.expected) t.truePositives++;
        else if (result) t.falsePositives++;
        if (strict?.identityId === item.expected) t.strictCaught++;
        else if (strict) t.strictFalse++;
        if (relaxed?.identityId === item.expected) t.relaxedCaught++;
        else if (relaxed) t.relaxedFalse++;
      }
      if (result?.identityId !== item.expected)
        missed.push(`${item.kind}: ${item.query} -> ${result ? result.matchedName : 'none'}`);
    }
    for (const item of set.negatives) {
      const result = outcome(item);
      const strict = outcome(item, 'STRICT');
      const relaxed = outcome(item, 'RELAXED');
      for (const t of [tally(item.disguise), tally('overall')]) {
        t.negatives++;
        if (result) t.falsePositives++;
        if (strict) t.strictFalse++;
        if (relaxed) t.relaxedFalse++;
      }
      if (result) wrong.push(`${item.kind}: ${item.query} -> ${result.matchedName} (${result.confidence})`);
    }
    const rows = [...tallies].map(([key, t]) => ({
      disguise: key,
      recall: ratio(t.truePositives, t.positives),
      precision: ratio(t.truePositives, t.truePositives + t.falsePositives),
      ...t,
    }));
    console.log(
      [
        `identities ${set.identities.length}, positives ${set.positives.length}, negatives ${set.negatives.length}, left out as ambiguous ${set.ambiguous.length}`,
        '| disguise | positives | caught | recall | hard negatives | false positives | precision | STRICT recall, false positives | RELAXED recall, false positives |',
        '|---|---|---|---|---|---|---|---|---|',
        ...rows.map(
          (r) =>
            `| ${r.disguise} | ${r.positives} | ${r.truePositives} | ${r.recall.toFixed(4)} | ${r.negatives} | ${r.falsePositives} | ${r.precision.toFixed(4)} ` +
            `| ${ratio(r.strictCaught, r.positives).toFixed(4)}, ${r.strictFalse} | ${ratio(r.relaxedCaught, r.positives).toFixed(4)}, ${r.relaxedFalse} |`,
        ),
        `missed: ${missed.join('; ') || 'none'}`,
        `wrongly matched: ${wrong.join('; ') || 'none'}`,
      ].join('\n'),
    );
    for (const row of rows) {
      if (row.positives === 0) {
        // Other people only: no disguise to recall, so what counts is how few are matched.
        expect({
          disguise: row.disguise,
          falsePositiveRate: row.falsePositives / row.negatives <= 0.005,
        }).toEqual({
          disguise: row.disguise,
          falsePositiveRate: true,
        });
        continue;
      }
      expect({ disguise: row.disguise, recallAtLeast098: row.recall >= 0.98 }).toEqual({
        disguise: row.disguise,
        recallAtLeast098: true,
      });
      expect({ disguise: row.disguise, precisionAtLeast0995: row.precision >= 0.995 }).toEqual({
        disguise: row.disguise,
        precisionAtLeast0995: true,
      });
    }
  });
});
