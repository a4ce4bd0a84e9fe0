import { NameIndex } from '../../src';
import { buildLabelledSet, type LabelledName } from '../fixtures/labelled-names';

/** Recall and precision of the engine at MODERATE on the labelled set (printed with the counts). */
describe('name matching quality on the labelled set', () => {
  const set = buildLabelledSet();
  const index = new NameIndex();
  for (const identity of set.identities) index.add(identity);

  const outcome = (item: LabelledName) => index.match(item.query, { enforcement: 'MODERATE' });

  it('when the labelled set is built, then it has at least 300 positives and 1,000 negatives', () => {
    expect(set.identities.length).toBeGreaterThanOrEqual(150);
    expect(set.positives.length).toBeGreaterThanOrEqual(300);
    expect(set.negatives.length).toBeGreaterThanOrEqual(1000);
  });

  it('when every query is checked at MODERATE, then recall is at least 0.95 and precision at least 0.99', () => {
    let truePositives = 0;
    let falsePositives = 0;
    const missed: string[] = [];
    const wrong: string[] = [];
    for (const item of set.positives) {
      const result = outcome(item);
      if (result?.identityId === item.expected) truePositives++;
      else {
        missed.push(`${item.kind}: ${item.query} -> ${result ? result.matchedName : 'none'}`);
        if (result) falsePositives++;
      }
    }
    for (const item of set.negatives) {
      const result = outcome(item);
      if (result) {
        falsePositives++;
        wrong.push(`${item.kind}: ${item.query} -> ${result.matchedName} (${result.confidence})`);
      }
    }
    const recall = truePositives / set.positives.length;
    const precision = truePositives / (truePositives + falsePositives);
    console.log(
      [
        `identities ${set.identities.length}, positives ${set.positives.length}, negatives ${set.negatives.length}, left out as ambiguous ${set.ambiguous.length}`,
        `true positives ${truePositives}, false negatives ${set.positives.length - truePositives}, false positives ${falsePositives}`,
        `recall ${recall.toFixed(4)}, precision ${precision.toFixed(4)} (MODERATE)`,
        `missed: ${missed.join('; ') || 'none'}`,
        `wrongly matched: ${wrong.join('; ') || 'none'}`,
        `left out as ambiguous: ${set.ambiguous.join('; ')}`,
        ...(['STRICT', 'RELAXED'] as const).map((enforcement) => {
          const hits = set.positives.filter(
            (p) => index.match(p.query, { enforcement })?.identityId === p.expected,
          );
          const falseHits = set.negatives.filter((n) => index.match(n.query, { enforcement })).length;
          return `${enforcement}: recall ${(hits.length / set.positives.length).toFixed(4)}, false positives ${falseHits}`;
        }),
      ].join('\n'),
    );
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(precision).toBeGreaterThanOrEqual(0.99);
  });
});
