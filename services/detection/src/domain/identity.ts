import type { EnforcementLevel } from '@svc/name-matching';

export type Policy = 'BLOCK_ALL' | 'BLOCK_COMMERCIAL' | 'MONETIZE' | 'LICENSE' | 'TEAM' | 'OPEN';
export type EntityType = 'INDIVIDUAL' | 'ESTATE' | 'CORPORATION' | 'AGENCY';
export type VerificationTier = 'GOLD' | 'SILVER' | 'BRONZE';

/** A box as detection needs it: the policy decides the action. */
export interface BoxTerms {
  boxId: string;
  policy: Policy;
  enforcement: EnforcementLevel;
  policyConfig: Record<string, unknown>;
  royaltyRate: number;
  boxedAt: Date;
}

/** A verified claim, matchable by its names and reference images, with its box if it has one. */
export interface IndexedIdentity {
  claimId: string;
  ownerPlatformId: string;
  name: string;
  variations: string[];
  entityType: EntityType;
  verificationTier: VerificationTier;
  verifiedAt: Date;
  box: BoxTerms | null;
}

/** A checked name is matched against a boxed identity at its box's level, else at MODERATE. */
export function enforcementOf(identity: IndexedIdentity): EnforcementLevel {
  return identity.box?.enforcement ?? 'MODERATE';
}

/** True when both have the same name and variations, in order (the name index need not change). */
export function sameNames(a: IndexedIdentity, b: IndexedIdentity): boolean {
  return (
    a.name === b.name &&
    a.variations.length === b.variations.length &&
    a.variations.every((v, i) => v === b.variations[i])
  );
}
