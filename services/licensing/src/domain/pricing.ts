import type { BoxView } from './box';
import type { LicenseTerms, Tier } from './license';

// Pricing and terms from a box's policy (contracts.md §8). Money is kept in integer cents.

export const DEFAULT_CURRENCY = 'USD';

export interface Pricing {
  monthlyFeeCents: number;
  /** A share of revenue, 0..1. */
  royaltyRate: number;
  currency: string;
  /** Approved at once, without the box owner's review. */
  autoApprove: boolean;
}

/** Dollars (a number from a policy) to integer cents. */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** Integer cents to the number the public API shows. */
export function fromCents(cents: number): number {
  return cents / 100;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** False when the policy forbids every avatar: such a box is not licensable. */
export function isLicensable(box: Pick<BoxView, 'policy'>): boolean {
  return box.policy !== 'BLOCK_ALL';
}

/**
 * What a tier costs on a box:
 * - LICENSE: `licenseTypes[tier].price` as the monthly fee and its `autoApprove`; a tier the box
 *   does not configure (enterprise always) costs 0 and waits for the owner's review;
 * - MONETIZE and OPEN: no fee, approved at once (MONETIZE earns through its royaltyRate);
 * - BLOCK_COMMERCIAL and TEAM: no fee, the owner reviews every request;
 * - royaltyRate: the box's (MONETIZE's configured rate, else 0); currency: `policyConfig.currency`
 *   when a 3-letter code, else USD.
 */
export function priceOf(box: Pick<BoxView, 'policy' | 'policyConfig' | 'royaltyRate'>, tier: Tier): Pricing {
  const configured = box.policyConfig.currency;
  const currency =
    typeof configured === 'string' && /^[A-Z]{3}$/.test(configured) ? configured : DEFAULT_CURRENCY;
  const royaltyRate = Math.min(1, Math.max(0, box.royaltyRate));
  switch (box.policy) {
    case 'LICENSE': {
      const offer = record(record(box.policyConfig.licenseTypes)[tier]);
      const price = typeof offer.price === 'number' && offer.price >= 0 ? offer.price : 0;
      return {
        monthlyFeeCents: toCents(price),
        royaltyRate,
        currency,
        autoApprove: offer.autoApprove === true,
      };
    }
    case 'MONETIZE':
    case 'OPEN':
      return { monthlyFeeCents: 0, royaltyRate, currency, autoApprove: true };
    default:
      return { monthlyFeeCents: 0, royaltyRate, currency, autoApprove: false };
  }
}

/** The terms a license is granted under: the box's guidelines and nsfw flag, non-exclusive, worldwide. */
export function termsOf(box: Pick<BoxView, 'policyConfig'>, estimatedUsers: number | null): LicenseTerms {
  const guidelines = box.policyConfig.contentGuidelines;
  return {
    maxUsers: estimatedUsers,
    contentGuidelines: typeof guidelines === 'string' ? guidelines : null,
    nsfw: box.policyConfig.nsfw === true,
    exclusivity: false,
    territory: 'worldwide',
  };
}

/** The tier a second-family request (`POST /licensing/request`) asks for, whatever its use_type. */
export const SECOND_FAMILY_TIER: Tier = 'creator';

const USE_TYPES = ['avatar', 'voice', 'video'];

export interface SecondFamilyTerms {
  auto_approve: boolean;
  pricing: { per_interaction: number; monthly_license: number };
  allowed_uses: string[];
  blocked_uses: string[];
  content_guidelines: string;
}

/**
 * `GET /licensing/terms/{identity_id}`: the creator tier's price and approval (the tier the
 * second family requests), `per_interaction` = the royalty rate (the share of each interaction's
 * revenue), allowed and blocked uses from the policy (use types, plus `nsfw` when not allowed and
 * `commercial` under BLOCK_COMMERCIAL).
 */
export function secondFamilyTermsOf(
  box: Pick<BoxView, 'policy' | 'policyConfig' | 'royaltyRate'>,
): SecondFamilyTerms {
  const pricing = priceOf(box, SECOND_FAMILY_TIER);
  const guidelines = box.policyConfig.contentGuidelines;
  let allowed: string[];
  let blocked: string[];
  switch (box.policy) {
    case 'BLOCK_ALL':
    case 'TEAM':
      allowed = [];
      blocked = [...USE_TYPES, 'commercial'];
      break;
    case 'BLOCK_COMMERCIAL': {
      const uses = box.policyConfig.allowedUses;
      allowed = Array.isArray(uses) ? uses.filter((u): u is string => typeof u === 'string') : ['personal'];
      blocked = ['commercial'];
      break;
    }
    default:
      allowed = [...USE_TYPES];
      blocked = [];
  }
  if (box.policy !== 'BLOCK_ALL' && box.policy !== 'TEAM' && box.policyConfig.nsfw !== true)
    blocked.push('nsfw');
  return {
    auto_approve: isLicensable(box) && pricing.autoApprove,
    pricing: { per_interaction: pricing.royaltyRate, monthly_license: fromCents(pricing.monthlyFeeCents) },
    allowed_uses: allowed,
    blocked_uses: blocked,
    content_guidelines: typeof guidelines === 'string' ? guidelines : '',
  };
}
