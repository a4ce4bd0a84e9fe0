import { errors } from '@svc/errors';
import type { BoxView } from './box';
import type { LicenseTerms, Tier } from './license';
import { amountOf, roundedCentsOf, type Cents } from '@svc/money';

// The owner's price list is the only source of a price (docs/spec/contracts.md §8, issue #15). Money is kept
// in integer cents (@svc/money).

export const DEFAULT_CURRENCY = 'USD';

export const TIERS: readonly Tier[] = ['personal', 'creator', 'commercial', 'enterprise'];

export interface Pricing {
  /** The list price; null when the owner prices the tier at approval (enterprise). */
  monthlyFeeCents: Cents | null;
  /** A share of revenue, 0..1. */
  royaltyRate: number;
  currency: string;
  /** Approved at once, without the box owner's review. */
  autoApprove: boolean;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Why a box grants no license at all, or null when it can be licensed. */
export function unlicensableReason(box: Pick<BoxView, 'policy'>): string | null {
  switch (box.policy) {
    case 'BLOCK_ALL':
      return 'this identity is not licensable';
    case 'TEAM':
      return 'TEAM boxes are not licensable (authorized accounts only)';
    case 'BLOCK_COMMERCIAL':
      return 'this identity is not licensable: BLOCK_COMMERCIAL boxes have no price list';
    default:
      return null;
  }
}

/** False when the box grants no license (BLOCK_ALL, TEAM, BLOCK_COMMERCIAL: no price list). */
export function isLicensable(box: Pick<BoxView, 'policy'>): boolean {
  return unlicensableReason(box) === null;
}

/**
 * The tiers a box offers: LICENSE boxes the tiers of `licenseTypes` (enterprise when listed);
 * MONETIZE and OPEN every tier (they earn through the royalty rate); the others none.
 */
export function offeredTiers(box: Pick<BoxView, 'policy' | 'policyConfig'>): Tier[] {
  if (box.policy === 'MONETIZE' || box.policy === 'OPEN') return [...TIERS];
  if (box.policy !== 'LICENSE') return [];
  const list = record(box.policyConfig.licenseTypes);
  return TIERS.filter((tier) => typeof list[tier] === 'object' && list[tier] !== null);
}

/**
 * What a tier costs on a box, from the owner's price list:
 * - LICENSE: `licenseTypes[tier].price` is the monthly fee and `autoApprove` decides; a listed tier
 *   without a price, and enterprise always, is priced by the owner at approval (reviewed);
 * - MONETIZE and OPEN: no fee, approved at once (MONETIZE earns through its royaltyRate);
 * - royaltyRate: the box's (MONETIZE's configured rate, else 0); currency: `policyConfig.currency`
 *   when a 3-letter code, else USD.
 * A box that grants no license, or a tier it does not offer, is refused (409 INVALID_STATE naming
 * the offered tiers): a price is never made up.
 */
export function priceOf(box: Pick<BoxView, 'policy' | 'policyConfig' | 'royaltyRate'>, tier: Tier): Pricing {
  const unlicensable = unlicensableReason(box);
  if (unlicensable !== null) {
    throw errors.invalidState(unlicensable, { policy: box.policy, offeredTiers: [] });
  }
  const offered = offeredTiers(box);
  if (!offered.includes(tier)) {
    throw errors.invalidState(`This box does not offer the ${tier} tier`, { tier, offeredTiers: offered });
  }
  const configured = box.policyConfig.currency;
  const currency =
    typeof configured === 'string' && /^[A-Z]{3}$/.test(configured) ? configured : DEFAULT_CURRENCY;
  const royaltyRate = Math.min(1, Math.max(0, box.royaltyRate));
  if (box.policy !== 'LICENSE') return { monthlyFeeCents: 0n, royaltyRate, currency, autoApprove: true };
  const offer = record(record(box.policyConfig.licenseTypes)[tier]);
  const listed = typeof offer.price === 'number' && offer.price >= 0 && tier !== 'enterprise';
  return {
    monthlyFeeCents: listed ? roundedCentsOf(offer.price as number) : null,
    royaltyRate,
    currency,
    autoApprove: listed && offer.autoApprove === true,
  };
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
  /** Null when the identity cannot be licensed in the creator tier, or the owner prices it at approval. */
  pricing: { per_interaction: number; monthly_license: number } | null;
  licensable: boolean;
  allowed_uses: string[];
  blocked_uses: string[];
  content_guidelines: string;
}

/**
 * `GET /licensing/terms/{identity_id}`: the creator tier's price and approval from the owner's
 * price list (the tier the second family requests), `per_interaction` = the royalty rate (the
 * share of each interaction's revenue); an identity that cannot be licensed in that tier says so
 * (`licensable: false`, `auto_approve: false`, no pricing). Allowed and blocked uses from the
 * policy (use types, plus `nsfw` when not allowed and `commercial` under BLOCK_COMMERCIAL).
 */
export function secondFamilyTermsOf(
  box: Pick<BoxView, 'policy' | 'policyConfig' | 'royaltyRate'>,
): SecondFamilyTerms {
  const licensable = isLicensable(box) && offeredTiers(box).includes(SECOND_FAMILY_TIER);
  const pricing = licensable ? priceOf(box, SECOND_FAMILY_TIER) : null;
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
    auto_approve: pricing?.autoApprove ?? false,
    pricing:
      pricing === null || pricing.monthlyFeeCents === null
        ? null
        : { per_interaction: pricing.royaltyRate, monthly_license: amountOf(pricing.monthlyFeeCents) },
    licensable,
    allowed_uses: allowed,
    blocked_uses: blocked,
    content_guidelines: typeof guidelines === 'string' ? guidelines : '',
  };
}
