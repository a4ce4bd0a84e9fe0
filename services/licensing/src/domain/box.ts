import type { Policy } from '@svc/contracts';

/** Licensing's projection of a registry box (fed by registry.box.* events). */
export interface BoxView {
  boxId: string;
  claimId: string;
  ownerPlatformId: string;
  identityName: string;
  policy: Policy;
  policyConfig: Record<string, unknown>;
  /** MONETIZE's royaltyRate, else 0 (as the registry computes it). */
  royaltyRate: number;
  /** The registry's `updatedAt`: an older event never overwrites a newer state. */
  updatedAt: Date;
  /** Set by registry.box.deleted; licenses on the box stay as they are. */
  deletedAt: Date | null;
}
