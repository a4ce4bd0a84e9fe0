import type { Policy } from '@svc/contracts/common';

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
  /** The registry's `updatedAt`: orders unversioned events only (ADR 0010). */
  updatedAt: Date;
  /** The box's entity version at the registry (ADR 0010): a lower one never overwrites a higher one. */
  version: number;
  /** Set by registry.box.deleted; licenses on the box stay as they are. */
  deletedAt: Date | null;
}
