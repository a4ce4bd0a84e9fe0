import { commercialIntent, licensesCover } from '@svc/commercial-intent';
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
  /** The tiers of the calling platform's active licenses on the box (LICENSE). */
  activeLicenseTiers: readonly string[];
}

/** The use a context states, read by the one commercial-intent reader (@svc/commercial-intent). */
export function statedUse(context: string | undefined): {
  commercial: boolean;
  unclear: boolean;
  uses: string[];
} {
  const reading = commercialIntent.read(context);
  return {
    commercial: reading.intent === 'commercial',
    unclear: reading.intent === 'unclear',
    uses: reading.uses,
  };
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

/** The action for a checked identity (docs/spec/contracts.md §13). */
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
      // A stated sale, price, paid plan or ad is commercial whatever else the context says; a
      // hedged one ("might add sponsors later") is asked about; an allowed use is allowed.
      const use = statedUse(inputs.context);
      if (use.commercial) return 'BLOCK';
      const allowed = stringsOf(box.policyConfig.allowedUses);
      return !use.unclear && use.uses.some((u) => allowed.includes(u)) ? 'ALLOW' : 'VERIFY_COMMERCIAL';
    }
    case 'MONETIZE':
      return 'TRACK_REVENUE';
    case 'LICENSE':
      // A license allows only the use its tier covers: commercial use needs a commercial-capable tier.
      return licensesCover(inputs.activeLicenseTiers, statedUse(inputs.context).commercial)
        ? 'ALLOW'
        : 'REQUIRE_LICENSE';
    case 'TEAM':
      return domainIsWhitelisted(inputs.platformDomain, stringsOf(box.policyConfig.platformWhitelist))
        ? 'ALLOW'
        : 'BLOCK';
    case 'OPEN':
      return 'ALLOW';
  }
}
