import { decideAction, domainIsWhitelisted, statedUse, type ActionInputs } from '../../src/domain/action';
import type { BoxTerms, IndexedIdentity, Policy } from '../../src/domain/identity';

function identity(
  policy: Policy | null,
  policyConfig: Record<string, unknown> = {},
  enforcement: BoxTerms['enforcement'] = 'MODERATE',
): IndexedIdentity {
  return {
    claimId: 'claim_1',
    ownerPlatformId: 'plat_owner',
    name: 'Ada Lovelace',
    variations: [],
    entityType: 'INDIVIDUAL',
    verificationTier: 'SILVER',
    verifiedAt: new Date('2026-01-01T00:00:00Z'),
    box:
      policy === null
        ? null
        : {
            boxId: 'box_1',
            policy,
            enforcement,
            policyConfig,
            royaltyRate: 0,
            boxedAt: new Date('2026-01-02T00:00:00Z'),
          },
  };
}

const plain: ActionInputs = { parodyLikelihood: 0, activeLicenseTiers: [] };

describe('the action for a checked identity (docs/spec/contracts.md §13)', () => {
  it('when nothing matched or the claim has no box, then the action is ALLOW', () => {
    expect(decideAction(null, plain)).toBe('ALLOW');
    expect(decideAction(identity(null), plain)).toBe('ALLOW');
  });

  it.each([
    ['BLOCK_ALL', 'BLOCK'],
    ['BLOCK_COMMERCIAL', 'VERIFY_COMMERCIAL'],
    ['MONETIZE', 'TRACK_REVENUE'],
    ['LICENSE', 'REQUIRE_LICENSE'],
    ['TEAM', 'BLOCK'],
    ['OPEN', 'ALLOW'],
  ] as const)(
    'when the box policy is %s and nothing else is said, then the action is %s',
    (policy, action) => {
      expect(decideAction(identity(policy), plain)).toBe(action);
    },
  );

  it('when BLOCK_COMMERCIAL and the context states commercial use, then BLOCK; an allowed use, then ALLOW', () => {
    const box = identity('BLOCK_COMMERCIAL', { allowedUses: ['personal', 'educational'] });
    expect(decideAction(box, { ...plain, context: 'A brand advertising campaign' })).toBe('BLOCK');
    expect(decideAction(box, { ...plain, context: 'commercial' })).toBe('BLOCK');
    expect(decideAction(box, { ...plain, context: 'classroom teaching material' })).toBe('ALLOW');
    expect(decideAction(box, { ...plain, context: 'non-commercial personal project' })).toBe('ALLOW');
    expect(decideAction(box, { ...plain, context: 'a chat companion' })).toBe('VERIFY_COMMERCIAL');
  });

  it.each([
    'not for personal use; we sell it',
    'educational course sold for $99',
    'personal shopper app with paid plans',
  ])(
    'when BLOCK_COMMERCIAL and the context %j names an allowed use but states a sale, price or paid plan, then BLOCK',
    (context) => {
      const box = identity('BLOCK_COMMERCIAL', { allowedUses: ['personal', 'educational'] });
      expect(decideAction(box, { ...plain, context })).toBe('BLOCK');
    },
  );

  it('when BLOCK_COMMERCIAL and commercial use is only hedged, then the user is asked', () => {
    const box = identity('BLOCK_COMMERCIAL', { allowedUses: ['personal'] });
    expect(decideAction(box, { ...plain, context: 'personal project, might add sponsors later' })).toBe(
      'VERIFY_COMMERCIAL',
    );
  });

  it('when BLOCK_COMMERCIAL and the stated use is not among allowedUses, then the user is asked', () => {
    const box = identity('BLOCK_COMMERCIAL', { allowedUses: ['educational'] });
    expect(decideAction(box, { ...plain, context: 'personal use only' })).toBe('VERIFY_COMMERCIAL');
  });

  it('when LICENSE and the calling platform holds an active license, then ALLOW', () => {
    expect(decideAction(identity('LICENSE'), { ...plain, activeLicenseTiers: ['personal'] })).toBe('ALLOW');
    // Issue #15: a personal license does not cover a context that states commercial use.
    const selling = {
      ...plain,
      context: 'we sell subscriptions to the avatar',
      activeLicenseTiers: ['personal'],
    };
    expect(decideAction(identity('LICENSE'), selling)).toBe('REQUIRE_LICENSE');
    expect(decideAction(identity('LICENSE'), { ...selling, activeLicenseTiers: ['commercial'] })).toBe(
      'ALLOW',
    );
  });

  it("when TEAM and the caller's domain is whitelisted (or a subdomain of one), then ALLOW; another domain, BLOCK", () => {
    const box = identity('TEAM', { platformWhitelist: ['partner.example'] });
    expect(decideAction(box, { ...plain, platformDomain: 'partner.example' })).toBe('ALLOW');
    expect(decideAction(box, { ...plain, platformDomain: 'app.partner.example' })).toBe('ALLOW');
    expect(decideAction(box, { ...plain, platformDomain: 'notpartner.example' })).toBe('BLOCK');
    expect(decideAction(box, { ...plain, platformDomain: undefined })).toBe('BLOCK');
  });

  it('when parody is likely, the box is not STRICT and the policy not BLOCK_ALL, then REVIEW_PARODY', () => {
    const parody = { ...plain, parodyLikelihood: 0.9 };
    expect(decideAction(identity('LICENSE'), parody)).toBe('REVIEW_PARODY');
    expect(decideAction(identity('MONETIZE', {}, 'RELAXED'), parody)).toBe('REVIEW_PARODY');
    expect(decideAction(identity('LICENSE', {}, 'STRICT'), parody)).toBe('REQUIRE_LICENSE');
    expect(decideAction(identity('BLOCK_ALL'), parody)).toBe('BLOCK');
    expect(decideAction(identity('LICENSE'), { ...plain, parodyLikelihood: 0.69 })).toBe('REQUIRE_LICENSE');
  });
});

describe('statedUse and domainIsWhitelisted', () => {
  it('when a context says non-commercial, then it is not commercial', () => {
    expect(statedUse('strictly non-commercial fan art').commercial).toBe(false);
    expect(statedUse('sponsored content').commercial).toBe(true);
    expect(statedUse(undefined)).toEqual({ commercial: false, unclear: true, uses: [] });
  });

  it('when a whitelist entry is empty or another domain merely ends the same way, then it does not match', () => {
    expect(domainIsWhitelisted('evilpartner.example', ['partner.example'])).toBe(false);
    expect(domainIsWhitelisted('partner.example', [''])).toBe(false);
    expect(domainIsWhitelisted('PARTNER.example.', ['*.partner.example'])).toBe(true);
  });
});
