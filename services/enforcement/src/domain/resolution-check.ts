import { COMMERCIAL_TIERS, tierCovers } from '@svc/commercial-intent';
import type { Policy } from '@svc/contracts/common';
import type { AvatarMatch } from '@svc/contracts/detection';
import { errors } from '@svc/errors';
import type { Avatar } from './avatar';
import { judgeMatch, PARODY_THRESHOLD } from './policy-breach';
import type { EnforcementLevel } from './timeline';

// A resolution is checked against the facts, never taken at its word (issue 14, docs/spec/contracts.md §8).
// Pure: the use case reads the facts (the license projection, detection's answer) and these rules
// say whether they resolve the violation, or what would. Every refusal is 409 INVALID_STATE with
// a message naming what would resolve it (400 VALIDATION_ERROR for a missing field).

/** The avatar's fields that detection reads and the box owner sees change. */
export interface AvatarSnapshot {
  name: string;
  description: string | null;
  imageUrl: string | null;
  commercial: boolean;
}

/** What a resolution rested on, shown to the hosting platform and the box owner. */
export interface ResolutionEvidence {
  /** `licensed`: the license that covers the avatar. */
  license?: { id: string; tier: string | null };
  /** The avatar as it was when resolved (`removed`: when it was taken down). */
  avatar?: AvatarSnapshot & { removedAt?: string };
  /** `modified`, `parody`: detection's answer about the avatar as it is now, on the violation's box. */
  reevaluation?: { matched: boolean; confidence: number | null; parodyLikelihood: number | null };
}

/** Who closed a violation: the hosting platform's call, its license becoming active, or a change to its avatar. */
export type ResolvedBy = 'platform' | 'license' | 'avatar_change';

/** A license as enforcement's projection knows it (licensing.license.* events). */
export interface LicenseRecord {
  licenseId: string;
  boxId: string;
  licenseePlatformId: string;
  status: string;
  tier: string | null;
}

export function snapshotOf(
  avatar: Pick<Avatar, 'name' | 'description' | 'imageUrl' | 'commercial'>,
): AvatarSnapshot {
  return {
    name: avatar.name,
    description: avatar.description,
    imageUrl: avatar.imageUrl,
    commercial: avatar.commercial,
  };
}

/** A box admits a parody exception unless it is STRICT or BLOCK_ALL (docs/spec/contracts.md §8, §13). */
export function admitsParody(box: { policy: Policy; enforcement: EnforcementLevel }): boolean {
  return box.enforcement !== 'STRICT' && box.policy !== 'BLOCK_ALL';
}

/** `licensed` needs the id of a license; a missing one is a validation error. */
export function requireLicenseId(licenseId: string | undefined): string {
  if (licenseId === undefined) {
    throw errors.validation('resolution licensed needs licenseId: the id of your active license on the box', {
      fields: [{ field: 'licenseId', message: 'required for resolution licensed' }],
    });
  }
  return licenseId;
}

/**
 * `licensed`: the license exists, is the calling platform's, is on the violation's box, is active,
 * and its tier covers the avatar's use (a commercial avatar needs a commercial or enterprise tier).
 */
export function checkLicense(
  license: LicenseRecord | null,
  licenseId: string,
  facts: { platformId: string; boxId: string; policy: Policy; commercial: boolean },
): ResolutionEvidence {
  const requestOne = `request one on box ${facts.boxId} (POST /v1/svc/licenses/request); the violation is resolved once it is active`;
  if (facts.policy === 'BLOCK_ALL') {
    throw errors.invalidState(
      `Box ${facts.boxId} is BLOCK_ALL: no license can cover the avatar; remove or modify it, or appeal`,
      { resolution: 'licensed', policy: facts.policy },
    );
  }
  if (license === null || license.licenseePlatformId !== facts.platformId || license.boxId !== facts.boxId) {
    throw errors.invalidState(
      `License ${licenseId} is not a license of yours on box ${facts.boxId}: ${requestOne}`,
      { resolution: 'licensed', licenseId, boxId: facts.boxId },
    );
  }
  if (license.status !== 'active') {
    throw errors.invalidState(
      `License ${licenseId} is ${license.status}, not active: renew it or ${requestOne}`,
      { resolution: 'licensed', licenseId, licenseStatus: license.status },
    );
  }
  if (!tierCovers(license.tier, facts.commercial)) {
    throw errors.invalidState(
      `License ${licenseId} (tier ${license.tier ?? 'unknown'}) does not cover commercial use: the avatar is ` +
        `commercial, so it needs a commercial or enterprise license on box ${facts.boxId}`,
      { resolution: 'licensed', licenseId, tier: license.tier, requiredTiers: COMMERCIAL_TIERS },
    );
  }
  return { license: { id: license.licenseId, tier: license.tier } };
}

/** The match shown in a refusal's details. */
function matchDetails(match: AvatarMatch) {
  return {
    boxId: match.boxId,
    identityName: match.identityName,
    confidence: match.confidence,
    layer: match.layer,
    classification: match.classification,
    matchedVariations: match.matchedVariations,
    imageMatchScore: match.imageMatchScore,
    parodyLikelihood: match.parodyLikelihood,
  };
}

function reevaluation(match: AvatarMatch | null): ResolutionEvidence['reevaluation'] {
  return {
    matched: match !== null,
    confidence: match?.confidence ?? null,
    parodyLikelihood: match?.parodyLikelihood ?? null,
  };
}

/**
 * `modified` and `parody`, given detection's answer about the avatar as it is now on the
 * violation's box (`match`, null when it no longer matches it) and the tiers of the platform's
 * active licenses there. `modified`: the avatar no longer breaks the box's policy. `parody`: the
 * box admits a parody exception and the avatar is likely parody.
 */
export function checkReevaluation(
  resolution: 'modified' | 'parody',
  avatar: Avatar,
  box: { boxId: string; policy: Policy; enforcement: EnforcementLevel },
  match: AvatarMatch | null,
  activeLicenseTiers: readonly string[],
): ResolutionEvidence {
  const evidence: ResolutionEvidence = { avatar: snapshotOf(avatar), reevaluation: reevaluation(match) };
  const changeIt = `change its name, description or image (PATCH /v1/svc/avatars/${avatar.id}) so that it no longer uses the identity, or remove it`;
  if (resolution === 'modified') {
    if (match !== null && judgeMatch(match, avatar, { tiers: activeLicenseTiers }) === 'violation') {
      throw errors.invalidState(
        `Avatar ${avatar.id} as it is now still matches box ${box.boxId} (${match.identityName}): ${changeIt}`,
        { resolution, match: matchDetails(match) },
      );
    }
    return evidence;
  }
  if (!admitsParody(box)) {
    throw errors.invalidState(
      `Box ${box.boxId} is ${box.policy} with ${box.enforcement} enforcement: it admits no parody exception; ` +
        `${changeIt}, or appeal`,
      { resolution, policy: box.policy, enforcement: box.enforcement },
    );
  }
  if (match === null) {
    throw errors.invalidState(
      `Avatar ${avatar.id} as it is now no longer matches box ${box.boxId}: resolve it as modified`,
      { resolution, match: null },
    );
  }
  if (match.parodyLikelihood < PARODY_THRESHOLD) {
    throw errors.invalidState(
      `Avatar ${avatar.id} is not likely parody (parodyLikelihood ${match.parodyLikelihood} < ${PARODY_THRESHOLD}): ` +
        `mark it clearly as parody in its description (PATCH /v1/svc/avatars/${avatar.id}), or ${changeIt}`,
      { resolution, match: matchDetails(match), parodyThreshold: PARODY_THRESHOLD },
    );
  }
  return evidence;
}
