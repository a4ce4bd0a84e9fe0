// Commercial intent, read once for the whole system (issue #15): detection's BLOCK_COMMERCIAL
// action, the LICENSE tier coverage of a check, and enforcement's judgement of a reported avatar
// all ask this package, so that one sentence never means two things. Rules, not a model: each
// answer names the signals it rests on. A negation or a price beats a keyword.

/** What a text says about commercial use. */
export type CommercialIntent = 'commercial' | 'non_commercial' | 'unclear';

/** The non-commercial uses a text may state (BLOCK_COMMERCIAL's `allowedUses`). */
export type StatedUse = 'personal' | 'educational' | 'parody';

export interface IntentReading {
  intent: CommercialIntent;
  /** The non-commercial uses the text states (and does not negate). */
  uses: StatedUse[];
  /** What the answer rests on, e.g. `price`, `sell`, `negated:commercial`. */
  signals: string[];
}

/** The interface the services depend on (style rule 4): one reader of commercial intent. */
export interface CommercialIntentReader {
  read(text: string | null | undefined): IntentReading;
}

// Phrases that deny commercial use; removed before looking for commercial words.
const NEGATED_COMMERCIAL =
  /\b(non[- ]?commercial(ly)?|not (for |a )?(commercial|profit|sale)|no (commercial|profit|ads|advertising|sponsors?|money|payment)|not (sold|monetized|monetised|paid)|never (sold|monetized|monetised|paid)|free of charge|without (ads|payment|charge)|for free|unpaid|no charge)\b/g;

// Phrases that deny a non-commercial use ("not for personal use"): the use is not stated.
const NEGATED_USE =
  /\b(not|never|no longer|isn't|is not)\s+(for\s+)?(personal|private|educational|parody|hobby)\b/g;

// Words a price is made of: $99, 99 USD, €5, 10 dollars, 5/month.
const PRICE =
  /([$€£¥]\s?\d)|(\b\d+([.,]\d+)?\s?(usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b)|(\b\d+([.,]\d+)?\s?\/\s?(mo|month|year|yr|week)\b)/;

const COMMERCIAL_SIGNALS: readonly [string, RegExp][] = [
  ['price', PRICE],
  ['paid', /\b(paid|paying|pay[- ]per|pay to|payments?|charge[sd]?|fees?)\b/],
  ['sell', /\b(sell|sells|selling|sold|sale|for sale|resell|merch(andise)?)\b/],
  ['subscription', /\b(subscriptions?|subscribers?|subscribe|premium|paywall(ed)?|membership)\b/],
  [
    'ads',
    /\b(ads?|advert(s|ising|isement|isements)?|sponsor(s|ed|ship)?|affiliate|brand (deal|partnership|campaign)|marketing|promotion(al)?|endorsement|campaign)\b/,
  ],
  [
    'commercial',
    /\b(commercial(ly)?|for[- ]profit|monetis(e|ed|ing|ation)|monetiz(e|ed|ing|ation)|revenue|business|customers?)\b/,
  ],
];

// Hedges that turn a commercial word into a question ("might sell later").
const HEDGE =
  /\b(might|may|maybe|possibly|perhaps|eventually|someday|later|considering|not sure|unsure|undecided)\b/;

const USE_WORDS: readonly [StatedUse, RegExp][] = [
  ['personal', /\b(personal|private|for myself|hobby|fan|just for fun|my own)\b/],
  [
    'educational',
    /\b(educat(ion|ional|e)|teaching|classroom|school|university|research|academic|lecture|course|students?)\b/,
  ],
  ['parody', /\b(parod(y|ies)|satir(e|ical)|spoof|comedy|comedic)\b/],
];

/** Reads the commercial intent of a text (null or empty: unclear, no uses). */
export function readCommercialIntent(text: string | null | undefined): IntentReading {
  const lower = (text ?? '').toLowerCase();
  const signals: string[] = [];
  const denied = lower.match(NEGATED_COMMERCIAL) ?? [];
  if (denied.length > 0) signals.push('negated:commercial');
  const rest = lower.replace(NEGATED_COMMERCIAL, ' ');
  const deniedUses = rest.match(NEGATED_USE) ?? [];
  if (deniedUses.length > 0) signals.push('negated:use');
  const withoutDeniedUses = rest.replace(NEGATED_USE, ' ');
  const commercial = COMMERCIAL_SIGNALS.filter(([, words]) => words.test(rest)).map(([name]) => name);
  signals.push(...commercial);
  const uses = USE_WORDS.filter(([, words]) => words.test(withoutDeniedUses)).map(([use]) => use);
  if (commercial.length > 0) {
    // A price or a sale is a fact; a lone keyword under a hedge is a question.
    const factual =
      commercial.includes('price') || commercial.includes('sell') || commercial.includes('paid');
    if (!factual && HEDGE.test(rest)) return { intent: 'unclear', uses, signals: [...signals, 'hedged'] };
    return { intent: 'commercial', uses, signals };
  }
  if (denied.length > 0 || uses.length > 0) return { intent: 'non_commercial', uses, signals };
  return { intent: 'unclear', uses, signals };
}

/** The default reader. */
export const commercialIntent: CommercialIntentReader = { read: readCommercialIntent };

/**
 * The license tiers that cover commercial use (docs/spec/contracts.md §8: "a commercial avatar needs a
 * commercial or enterprise tier"). `personal` and `creator` cover non-commercial use only.
 */
export const COMMERCIAL_TIERS: readonly string[] = ['commercial', 'enterprise'];

/**
 * Whether a license of `tier` covers a use (commercial or not). A tier that is not known (null,
 * e.g. a license projected before tiers were carried) covers non-commercial use only.
 */
export function tierCovers(tier: string | null, commercialUse: boolean): boolean {
  return !commercialUse || (tier !== null && COMMERCIAL_TIERS.includes(tier));
}

/** Whether any of the active licenses' tiers covers the use: the one coverage rule of every service. */
export function licensesCover(tiers: readonly string[], commercialUse: boolean): boolean {
  return tiers.some((tier) => tierCovers(tier, commercialUse));
}
