import type { Policy } from '@svc/contracts/common';
import type { ViolationStatus } from './violation';

export type ResolutionType = 'license' | 'remove' | 'modify' | 'appeal';

export interface LicensePricing {
  personal: number | null;
  creator: number | null;
  commercial: number | null;
}

export interface ResolutionOption {
  type: ResolutionType;
  description: string;
  available: boolean;
  pricing?: LicensePricing;
}

function priceOf(licenseTypes: unknown, tier: string): number | null {
  if (typeof licenseTypes !== 'object' || licenseTypes === null) return null;
  const entry = (licenseTypes as Record<string, unknown>)[tier];
  if (typeof entry !== 'object' || entry === null) return null;
  const price = (entry as Record<string, unknown>).price;
  return typeof price === 'number' ? price : null;
}

/** The monthly price of each license tier the box offers (policyConfig.licenseTypes). */
export function pricingOf(policyConfig: Record<string, unknown>): LicensePricing {
  const types = policyConfig.licenseTypes;
  return {
    personal: priceOf(types, 'personal'),
    creator: priceOf(types, 'creator'),
    commercial: priceOf(types, 'commercial'),
  };
}

/** What the platform can do about a violation, and whether it still can. */
export function resolutionOptions(
  violation: { id: string; status: ViolationStatus; policy: Policy },
  avatarId: string,
  policyConfig: Record<string, unknown>,
): ResolutionOption[] {
  const open = violation.status === 'pending' || violation.status === 'appealed';
  return [
    {
      type: 'license',
      description:
        'Obtain a license on the box (POST /v1/svc/licenses/request); the violation is resolved once it is active',
      available: open && violation.policy !== 'BLOCK_ALL',
      pricing: pricingOf(policyConfig),
    },
    {
      type: 'remove',
      description: `Take the avatar down and stop reporting it (DELETE /v1/svc/avatars/${avatarId})`,
      available: open,
    },
    {
      type: 'modify',
      description: `Change the avatar so that it no longer uses the identity (PATCH /v1/svc/avatars/${avatarId})`,
      available: open,
    },
    {
      type: 'appeal',
      description: `Appeal if the detection is wrong (POST /v1/svc/violations/${violation.id}/appeal); the grace period pauses during the review`,
      available: violation.status === 'pending',
    },
  ];
}
