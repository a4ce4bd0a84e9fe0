import { licensesCover, readCommercialIntent, tierCovers, type CommercialIntent } from '../../src/index';

// A labelled set of contexts and descriptions: what a reader would say each one states.
const LABELLED: readonly [string, CommercialIntent][] = [
  // The issue's cases: a negation or a price beats a keyword.
  ['not for personal use; we sell it', 'commercial'],
  ['educational course sold for $99', 'commercial'],
  ['personal shopper app with paid plans', 'commercial'],
  ['A brand advertising campaign', 'commercial'],
  ['sponsored content for our channel', 'commercial'],
  ['premium subscription companion, 9.99/month', 'commercial'],
  ['we will monetize the chatbot with ads', 'commercial'],
  ['merch store selling t-shirts with the avatar', 'commercial'],
  ['pay-per-message voice chat', 'commercial'],
  ['for-profit marketing assistant', 'commercial'],
  ['commercial use in a product demo', 'commercial'],
  ['an influencer brand deal', 'commercial'],
  ['subscribers get exclusive videos', 'commercial'],
  ['our customers talk to the avatar in the shop app', 'commercial'],
  ['10 EUR per session coaching bot', 'commercial'],
  ['affiliate links in every answer', 'commercial'],
  ['revenue share with the platform', 'commercial'],
  ['non-commercial fan art', 'non_commercial'],
  ['strictly non-commercial personal project', 'non_commercial'],
  ['classroom teaching material', 'non_commercial'],
  ['free educational videos for my students, no ads', 'non_commercial'],
  ['a parody sketch for a comedy club night', 'non_commercial'],
  ['just for fun with friends, not for sale', 'non_commercial'],
  ['university research on voice synthesis', 'non_commercial'],
  ['personal use only', 'non_commercial'],
  ['satire of the news, free of charge', 'non_commercial'],
  ['my own hobby project, never monetized', 'non_commercial'],
  ['not commercial, a tribute for the family', 'non_commercial'],
  ['lesson plans for a history course', 'non_commercial'],
  ['a chat companion', 'unclear'],
  ['avatar for our community server', 'unclear'],
  ['voice clone for an audiobook', 'unclear'],
  ['we might add sponsors later', 'unclear'],
  ['', 'unclear'],
];

describe('readCommercialIntent on the labelled set', () => {
  it('when every labelled context is read, then precision and recall of "commercial" are at least 0.95 and are printed', () => {
    let truePositive = 0;
    let falsePositive = 0;
    let falseNegative = 0;
    const wrong: string[] = [];
    for (const [text, label] of LABELLED) {
      const { intent } = readCommercialIntent(text);
      if (intent === 'commercial' && label === 'commercial') truePositive += 1;
      if (intent === 'commercial' && label !== 'commercial') falsePositive += 1;
      if (intent !== 'commercial' && label === 'commercial') falseNegative += 1;
      if (intent !== label) wrong.push(`${JSON.stringify(text)}: ${intent}, labelled ${label}`);
    }
    const precision = truePositive / (truePositive + falsePositive);
    const recall = truePositive / (truePositive + falseNegative);
    const accuracy = (LABELLED.length - wrong.length) / LABELLED.length;
    // The figures the issue asks for, printed with every run.
    console.log(
      `commercial intent on ${LABELLED.length} labelled texts: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}, three-way accuracy ${accuracy.toFixed(3)}${wrong.length ? `\n  ${wrong.join('\n  ')}` : ''}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(accuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('when a negated use meets a sale, then the sale wins and the negated use is not stated', () => {
    expect(readCommercialIntent('not for personal use; we sell it')).toMatchObject({
      intent: 'commercial',
      uses: [],
    });
  });

  it('when a text states a non-commercial use, then the use is named', () => {
    expect(readCommercialIntent('classroom teaching material').uses).toEqual(['educational']);
    expect(readCommercialIntent(undefined)).toEqual({ intent: 'unclear', uses: [], signals: [] });
  });
});

describe('tier coverage', () => {
  it('when the use is commercial, then personal and creator do not cover it, commercial and enterprise do, an unknown tier does not', () => {
    expect(tierCovers('personal', true)).toBe(false);
    expect(tierCovers('personal', false)).toBe(true);
    expect(tierCovers('creator', true)).toBe(false);
    expect(['commercial', 'enterprise'].every((tier) => tierCovers(tier, true))).toBe(true);
    expect(tierCovers(null, true)).toBe(false);
    expect(tierCovers(null, false)).toBe(true);
    expect(licensesCover(['personal'], true)).toBe(false);
    expect(licensesCover(['personal', 'commercial'], true)).toBe(true);
    expect(licensesCover([], false)).toBe(false);
  });
});
