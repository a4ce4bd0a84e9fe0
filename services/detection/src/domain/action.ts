import type { IndexedIdentity } from './identity';
import { PARODY_THRESHOLD } from './parody';

export type Action =
  'ALLOW' | 'BLOCK' | 'REQUIRE_LICENSE' | 'TRACK_REVENUE' | 'VERIFY_COMMERCIAL' | 'REVIEW_PARODY';

/** What the action depends on besides the matched identity. */
export interface ActionInputs {
  /** The caller's stated use (`context`). */
  context?: string | undefined;
  parodyLikelihood: number;
  /** The calling platform's domain (TEAM's platformWhitelist). */
  platformDomain?: string | undefined;
  /** The calling platform holds an active license on the box (LICENSE). */
  holdsActiveLicense: boolean;
}

const NON_COMMERCIAL = /\bnon[- ]?commercial\b|\bnot (for )?commercial\b|\bno commercial\b/;
const COMMERCIAL =
  /\b(commercial(ly)?|advertis(e|ing|ement|ements)|ads?|sponsor(ed|ship)?|brand (deal|partnership)|marketing|promotion(al)?|endorsement|monetis(e|ed|ing)|monetiz(e|ed|ing)|for sale|for profit|paid (content|promotion))\b/;

/** The uses BLOCK_COMMERCIAL's `allowedUses` may name, and the words that state each. */
const USE_WORDS: Readonly<Record<string, RegExp>> = {
  personal: /\b(personal|private|non[- ]?commercial|for myself|hobby|fan)\b/,
  educational:
    /\b(educat(ion|ional|e)|teaching|classroom|school|university|research|academic|lecture|training)\b/,
  parody: /\b(parod(y|ies)|satir(e|ical)|spoof|comedy|comedic)\b/,
};

/** The use a context states: commercial wins over anything else it says. */
export function statedUse(context: string | undefined): { commercial: boolean; uses: string[] } {
  const text = (context ?? '').toLowerCase();
  const commercial = COMMERCIAL.test(text.replace(NON_COMMERCIAL, ' '));
  const uses = Object.entries(USE_WORDS)
    .filter(([, words]) => words.test(text))
    .map(([use]) => use);
  return { commercial, uses };
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A domain matches a whitelisted one exactly or as a subdomain of it, case-insensitively. */
export function domainIsWhitelisted(domain: string | undefined, whitelist: readonly string[]): boolean {
  if (domain === undefined || domain === '') return false;
  const host = domain.toLowerCase().replace(/\.$/, '');
  return whitelist.some((entry) => {
    const allowed = entry.toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
    return allowed !== '' && (host === allowed || host.endsWith(`.${allowed}`));
  });
}

/** The action for a checked identity (contracts.md §13). */
export function decideAction(identity: IndexedIdentity | null, inputs: ActionInputs): Action {
  const box = identity?.box;
  if (!box) return 'ALLOW';
  if (
    inputs.parodyLikelihood >= PARODY_THRESHOLD &&
    box.enforcement !== 'STRICT' &&
    box.policy !== 'BLOCK_ALL'
  ) {
    return 'REVIEW_PARODY';
  }
  switch (box.policy) {
    case 'BLOCK_ALL':
      return 'BLOCK';
    case 'BLOCK_COMMERCIAL': {
      const use = statedUse(inputs.context);
      if (use.commercial) return 'BLOCK';
      const allowed = stringsOf(box.policyConfig.allowedUses);
      return use.uses.some((u) => allowed.includes(u)) ? 'ALLOW' : 'VERIFY_COMMERCIAL';
    }
    case 'MONETIZE':
      return 'TRACK_REVENUE';
    case 'LICENSE':
      return inputs.holdsActiveLicense ? 'ALLOW' : 'REQUIRE_LICENSE';
    case 'TEAM':
      return domainIsWhitelisted(inputs.platformDomain, stringsOf(box.policyConfig.platformWhitelist))
        ? 'ALLOW'
        : 'BLOCK';
    case 'OPEN':
      return 'ALLOW';
  }
}
