import { AppError } from '@svc/errors';
import { isLicensable, offeredTiers, priceOf, secondFamilyTermsOf, termsOf } from '../../src/domain/pricing';

function refusal(fn: () => unknown): { code: string; details: unknown } {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

const licenseBox = (policyConfig: Record<string, unknown>) => ({
  policy: 'LICENSE' as const,
  policyConfig,
  royaltyRate: 0,
});

describe('priceOf', () => {
  it('when a LICENSE box prices the tier, then its price is the monthly fee in cents and its autoApprove applies', () => {
    const box = licenseBox({
      licenseTypes: {
        creator: { price: 49.99, autoApprove: false },
        personal: { price: 9.99, autoApprove: true },
      },
    });
    expect(priceOf(box, 'creator')).toEqual({
      monthlyFeeCents: 4999n,
      royaltyRate: 0,
      currency: 'USD',
      autoApprove: false,
    });
    expect(priceOf(box, 'personal')).toMatchObject({ monthlyFeeCents: 999n, autoApprove: true });
  });

  it('when the tier is not on the price list, then it is refused with the offered tiers, never priced 0', () => {
    const box = licenseBox({ licenseTypes: { personal: { price: 9 }, creator: { price: 49 } } });
    expect(refusal(() => priceOf(box, 'enterprise'))).toEqual({
      code: 'INVALID_STATE',
      details: { tier: 'enterprise', offeredTiers: ['personal', 'creator'] },
    });
    expect(refusal(() => priceOf(licenseBox({}), 'creator')).details).toEqual({
      tier: 'creator',
      offeredTiers: [],
    });
  });

  it('when enterprise or a tier without a price is listed, then the owner prices it at approval (no autoApprove)', () => {
    const box = licenseBox({ licenseTypes: { enterprise: {}, creator: { autoApprove: true } } });
    expect(offeredTiers(box)).toEqual(['creator', 'enterprise']);
    expect(priceOf(box, 'enterprise')).toMatchObject({ monthlyFeeCents: null, autoApprove: false });
    expect(priceOf(box, 'creator')).toMatchObject({ monthlyFeeCents: null, autoApprove: false });
  });

  it('when the box is MONETIZE, then no fee, its royaltyRate and approved at once', () => {
    expect(
      priceOf({ policy: 'MONETIZE', policyConfig: { royaltyRate: 0.15 }, royaltyRate: 0.15 }, 'creator'),
    ).toEqual({
      monthlyFeeCents: 0n,
      royaltyRate: 0.15,
      currency: 'USD',
      autoApprove: true,
    });
  });

  it('when the box is OPEN, then approved at once; TEAM, BLOCK_COMMERCIAL and BLOCK_ALL grant no license', () => {
    expect(priceOf({ policy: 'OPEN', policyConfig: {}, royaltyRate: 0 }, 'creator').autoApprove).toBe(true);
    expect(refusal(() => priceOf({ policy: 'TEAM', policyConfig: {}, royaltyRate: 0 }, 'creator'))).toEqual({
      code: 'INVALID_STATE',
      details: { policy: 'TEAM', offeredTiers: [] },
    });
    for (const policy of ['BLOCK_COMMERCIAL', 'BLOCK_ALL'] as const) {
      expect(refusal(() => priceOf({ policy, policyConfig: {}, royaltyRate: 0 }, 'personal')).code).toBe(
        'INVALID_STATE',
      );
    }
  });

  it('when a currency is configured, then it is used; otherwise USD', () => {
    const types = { licenseTypes: { creator: { price: 1 } } };
    expect(priceOf(licenseBox({ ...types, currency: 'EUR' }), 'creator').currency).toBe('EUR');
    expect(priceOf(licenseBox({ ...types, currency: 'euro' }), 'creator').currency).toBe('USD');
  });

  it('when prices have binary-unfriendly decimals, then cents are rounded half-up on the decimal form', () => {
    const priced = (price: number) =>
      priceOf(licenseBox({ licenseTypes: { creator: { price } } }), 'creator');
    expect(priced(0.1 + 0.2).monthlyFeeCents).toBe(30n);
    expect(priced(19.99).monthlyFeeCents).toBe(1999n);
    // The float product 9.995 * 100 is 999.4999999999999 (Math.round gave 999): the decimal 9.995 is 999.5 cents.
    expect(priced(9.995).monthlyFeeCents).toBe(1000n);
  });
});

describe('isLicensable and termsOf', () => {
  it('when the policy is BLOCK_ALL, then the identity is not licensable', () => {
    expect(isLicensable({ policy: 'BLOCK_ALL' })).toBe(false);
    expect(isLicensable({ policy: 'TEAM' })).toBe(false);
    expect(isLicensable({ policy: 'LICENSE' })).toBe(true);
  });

  it('when terms are made, then guidelines and nsfw come from the box, non-exclusive and worldwide', () => {
    expect(termsOf({ policyConfig: { contentGuidelines: 'https://g.example', nsfw: true } }, 100)).toEqual({
      maxUsers: 100,
      contentGuidelines: 'https://g.example',
      nsfw: true,
      exclusivity: false,
      territory: 'worldwide',
    });
    expect(termsOf({ policyConfig: {} }, null)).toMatchObject({
      maxUsers: null,
      contentGuidelines: null,
      nsfw: false,
    });
  });
});

describe('secondFamilyTermsOf', () => {
  it('when a LICENSE box, then the creator tier is priced and uses are allowed except nsfw', () => {
    const terms = secondFamilyTermsOf(
      licenseBox({
        licenseTypes: { creator: { price: 49.99, autoApprove: true } },
        contentGuidelines: 'https://g.example',
      }),
    );
    expect(terms).toEqual({
      auto_approve: true,
      pricing: { per_interaction: 0, monthly_license: 49.99 },
      licensable: true,
      allowed_uses: ['avatar', 'voice', 'video'],
      blocked_uses: ['nsfw'],
      content_guidelines: 'https://g.example',
    });
  });

  it('when MONETIZE, then per_interaction is the royalty rate', () => {
    const terms = secondFamilyTermsOf({
      policy: 'MONETIZE',
      policyConfig: { royaltyRate: 0.2, nsfw: true },
      royaltyRate: 0.2,
    });
    expect(terms.pricing).toEqual({ per_interaction: 0.2, monthly_license: 0 });
    expect(terms.blocked_uses).toEqual([]);
  });

  it('when BLOCK_ALL, then nothing is allowed and nothing is auto-approved', () => {
    const terms = secondFamilyTermsOf({ policy: 'BLOCK_ALL', policyConfig: {}, royaltyRate: 0 });
    expect(terms.auto_approve).toBe(false);
    expect(terms.licensable).toBe(false);
    expect(terms.pricing).toBeNull();
    expect(terms.allowed_uses).toEqual([]);
    expect(terms.blocked_uses).toEqual(['avatar', 'voice', 'video', 'commercial']);
  });

  it('when BLOCK_COMMERCIAL, then its allowedUses are allowed and commercial is blocked', () => {
    const terms = secondFamilyTermsOf({
      policy: 'BLOCK_COMMERCIAL',
      policyConfig: { allowedUses: ['personal', 'parody'] },
      royaltyRate: 0,
    });
    expect(terms).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
    expect(terms.allowed_uses).toEqual(['personal', 'parody']);
    expect(terms.blocked_uses).toEqual(['commercial', 'nsfw']);
  });

  it('when a LICENSE box does not list the creator tier, then the terms say it cannot be licensed, with no price', () => {
    const terms = secondFamilyTermsOf(
      licenseBox({ licenseTypes: { personal: { price: 9, autoApprove: true } } }),
    );
    expect(terms).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
  });
});
