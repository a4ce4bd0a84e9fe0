import { isLicensable, priceOf, secondFamilyTermsOf, termsOf, toCents } from '../../src/domain/pricing';

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
      monthlyFeeCents: 4999,
      royaltyRate: 0,
      currency: 'USD',
      autoApprove: false,
    });
    expect(priceOf(box, 'personal')).toMatchObject({ monthlyFeeCents: 999, autoApprove: true });
  });

  it('when the tier is not configured (enterprise, or no licenseTypes), then it costs 0 and waits for review', () => {
    expect(priceOf(licenseBox({}), 'enterprise')).toMatchObject({ monthlyFeeCents: 0, autoApprove: false });
    expect(priceOf(licenseBox({ licenseTypes: { creator: {} } }), 'creator')).toMatchObject({
      monthlyFeeCents: 0,
      autoApprove: false,
    });
  });

  it('when the box is MONETIZE, then no fee, its royaltyRate and approved at once', () => {
    expect(
      priceOf({ policy: 'MONETIZE', policyConfig: { royaltyRate: 0.15 }, royaltyRate: 0.15 }, 'creator'),
    ).toEqual({
      monthlyFeeCents: 0,
      royaltyRate: 0.15,
      currency: 'USD',
      autoApprove: true,
    });
  });

  it('when the box is OPEN, then approved at once; TEAM and BLOCK_COMMERCIAL wait for the owner', () => {
    expect(priceOf({ policy: 'OPEN', policyConfig: {}, royaltyRate: 0 }, 'creator').autoApprove).toBe(true);
    expect(priceOf({ policy: 'TEAM', policyConfig: {}, royaltyRate: 0 }, 'creator').autoApprove).toBe(false);
    expect(
      priceOf({ policy: 'BLOCK_COMMERCIAL', policyConfig: {}, royaltyRate: 0 }, 'personal').autoApprove,
    ).toBe(false);
  });

  it('when a currency is configured, then it is used; otherwise USD', () => {
    expect(priceOf(licenseBox({ currency: 'EUR' }), 'creator').currency).toBe('EUR');
    expect(priceOf(licenseBox({ currency: 'euro' }), 'creator').currency).toBe('USD');
  });

  it('when prices have binary-unfriendly decimals, then cents are rounded exactly', () => {
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(19.99)).toBe(1999);
  });
});

describe('isLicensable and termsOf', () => {
  it('when the policy is BLOCK_ALL, then the identity is not licensable', () => {
    expect(isLicensable({ policy: 'BLOCK_ALL' })).toBe(false);
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
    expect(terms.allowed_uses).toEqual([]);
    expect(terms.blocked_uses).toEqual(['avatar', 'voice', 'video', 'commercial']);
  });

  it('when BLOCK_COMMERCIAL, then its allowedUses are allowed and commercial is blocked', () => {
    const terms = secondFamilyTermsOf({
      policy: 'BLOCK_COMMERCIAL',
      policyConfig: { allowedUses: ['personal', 'parody'] },
      royaltyRate: 0,
    });
    expect(terms.allowed_uses).toEqual(['personal', 'parody']);
    expect(terms.blocked_uses).toEqual(['commercial', 'nsfw']);
  });
});
