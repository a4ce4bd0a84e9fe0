// How likely the description and context make parody (docs/spec/contracts.md §13: 0.7 or more, with a box
// that is not STRICT and a policy other than BLOCK_ALL, gives REVIEW_PARODY). A cue-word score,
// deterministic: the same words always give the same likelihood.

/** Words that name parody outright. */
const STRONG =
  /\b(parod(y|ies|ic|ied|ying)|satir(e|es|ical|ise|ize|ist)|spoof(s|ed|ing)?|lampoon(s|ed|ing)?|caricatur(e|es|ed)|mockumentary|pastiche|burlesque)\b/g;
/** Words that make parody plausible without naming it. */
const HINT =
  /\b(impression(s|ist)?|impersonat(e|es|ed|ing|ion|or|ors)|tribute|homage|fan[- ]?(art|made|fiction|tribute)|cosplay|comed(y|ic|ian)|comedic|sketch|joke(s)?|meme(s)?|humou?r(ous)?|look[- ]?alike|not (the )?real|unofficial|not affiliated|fake)\b/g;
const NEGATION = /\b(not|no|never|isn't|is not|without)\s+(an?\s+)?$/;

const STRONG_WEIGHT = 0.9;
const HINT_WEIGHT = 0.5;

function cues(text: string, pattern: RegExp): number {
  let count = 0;
  for (const match of text.matchAll(pattern)) {
    // "not a parody" and "no satire" are statements against parody.
    const before = text.slice(Math.max(0, match.index - 12), match.index);
    if (!NEGATION.test(before)) count += 1;
  }
  return count;
}

/** 0..1, rounded to two decimals: 1 - Π(1 - weight) over the cue words found. */
export function parodyLikelihood(...texts: (string | undefined)[]): number {
  const text = texts
    .filter((t): t is string => t !== undefined)
    .join(' \n ')
    .toLowerCase();
  if (text.trim() === '') return 0;
  // "not affiliated" and "not real" are hints themselves, so they are counted before negations apply.
  const strong = cues(text, STRONG);
  const hints = cues(text, HINT);
  const unlikely = (1 - STRONG_WEIGHT) ** strong * (1 - HINT_WEIGHT) ** hints;
  return Math.round((1 - unlikely) * 100) / 100;
}

/** The likelihood from which parody changes the action (docs/spec/contracts.md §13). */
export const PARODY_THRESHOLD = 0.7;
