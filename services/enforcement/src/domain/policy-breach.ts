import { commercialIntent, licensesCover } from '@svc/commercial-intent';
import type { AvatarMatch } from '@svc/contracts/detection';

// Does an avatar break the policy of the box it matches (docs/spec/contracts.md §8, §13)? Pure.

export type MatchOutcome = 'violation' | 'licensed' | 'authorized' | 'allowed' | 'monitored' | 'parody';

/** From this parody likelihood on, a non-STRICT box that is not BLOCK_ALL lets the avatar be (REVIEW_PARODY). */
export const PARODY_THRESHOLD = 0.7;

export interface AvatarFacts {
  creatorId: string;
  commercial: boolean;
  /** The avatar's description: commercial use it states counts as `commercial: true`. */
  description?: string | null | undefined;
  /** The hosting platform's domain (from the internal token), for TEAM's platformWhitelist. */
  platformDomain: string | null;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Whether an avatar is in commercial use: flagged `commercial`, or its description states it (one reader for all services). */
export function isCommercialAvatar(avatar: Pick<AvatarFacts, 'commercial' | 'description'>): boolean {
  return avatar.commercial || commercialIntent.read(avatar.description).intent === 'commercial';
}

/** The tiers of the platform's active licenses on the box. */
export interface ActiveLicenses {
  tiers: readonly string[];
}

/**
 * The outcome of a match: `violation` when the avatar breaks the box's policy. On LICENSE and
 * MONETIZE boxes a license must cover the avatar's use: a commercial avatar (flag or description)
 * needs a commercial-capable tier, a personal license does not cover it.
 */
export function judgeMatch(
  match: Pick<AvatarMatch, 'policy' | 'enforcement' | 'policyConfig' | 'parodyLikelihood'>,
  avatar: AvatarFacts,
  licenses: ActiveLicenses,
): MatchOutcome {
  if (match.policy === 'OPEN') return 'monitored';
  if (
    match.parodyLikelihood >= PARODY_THRESHOLD &&
    match.enforcement !== 'STRICT' &&
    match.policy !== 'BLOCK_ALL'
  ) {
    return 'parody';
  }
  switch (match.policy) {
    case 'BLOCK_ALL':
      return 'violation';
    case 'LICENSE':
    case 'MONETIZE':
      return licensesCover(licenses.tiers, isCommercialAvatar(avatar)) ? 'licensed' : 'violation';
    case 'TEAM': {
      const accounts = stringList(match.policyConfig.authorizedAccounts);
      const domains = stringList(match.policyConfig.platformWhitelist).map((d) => d.toLowerCase());
      const domain = avatar.platformDomain?.toLowerCase();
      if (accounts.includes(avatar.creatorId)) return 'authorized';
      if (domain !== undefined && domains.includes(domain)) return 'authorized';
      return 'violation';
    }
    case 'BLOCK_COMMERCIAL':
      return isCommercialAvatar(avatar) ? 'violation' : 'allowed';
  }
}
