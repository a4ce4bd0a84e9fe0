import { createBoxBodySchema, updateBoxBodySchema } from '@svc/contracts/registry';
import { AppError } from '@svc/errors';
import { checkPolicyConfig, royaltyRateOf } from '../../src/domain/box';

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    return ((err as AppError).details as { fields: { field: string }[] }).fields.map((f) => f.field);
  }
  return [];
}

describe('policyConfig per policy', () => {
  it.each([
    [
      'MONETIZE',
      {
        royaltyRate: 0,
        revenueTypes: ['subscription', 'per_message', 'tips', 'ads'],
        minimumPayout: 0,
        contentGuidelines: 'https://x.example/g',
        nsfw: true,
      },
    ],
    ['MONETIZE', { royaltyRate: 1 }],
    [
      'LICENSE',
      {
        licenseTypes: { personal: { price: 0, autoApprove: true }, creator: {}, commercial: { price: 1000 } },
      },
    ],
    ['TEAM', { authorizedAccounts: [], platformWhitelist: ['a.example'] }],
    ['BLOCK_COMMERCIAL', { allowedUses: ['personal', 'educational', 'parody'] }],
    ['BLOCK_ALL', {}],
    ['OPEN', undefined],
  ] as const)('when %s gets %p, then it is accepted', (policy, config) => {
    expect(checkPolicyConfig(policy, config as Record<string, unknown> | undefined)).toEqual(config ?? {});
  });

  it.each([
    ['MONETIZE', { royaltyRate: -0.1 }, 'policyConfig.royaltyRate'],
    ['MONETIZE', { royaltyRate: 1.01 }, 'policyConfig.royaltyRate'],
    ['MONETIZE', { minimumPayout: -1 }, 'policyConfig.minimumPayout'],
    ['MONETIZE', { revenueTypes: ['crypto'] }, 'policyConfig.revenueTypes.0'],
    ['MONETIZE', { contentGuidelines: 'ftp://x' }, 'policyConfig.contentGuidelines'],
    // Enterprise may be offered (`enterprise: {}`), but the owner prices it at approval: no list price.
    ['LICENSE', { licenseTypes: { enterprise: { price: 1 } } }, 'policyConfig.licenseTypes.enterprise'],
    ['LICENSE', { licenseTypes: { personal: { price: -5 } } }, 'policyConfig.licenseTypes.personal.price'],
    ['LICENSE', { royaltyRate: 0.1 }, 'policyConfig'],
    ['TEAM', { authorizedAccounts: 'everyone' }, 'policyConfig.authorizedAccounts'],
    ['BLOCK_COMMERCIAL', { allowedUses: ['commercial'] }, 'policyConfig.allowedUses.0'],
    ['BLOCK_ALL', { anything: true }, 'policyConfig'],
    ['OPEN', { nsfw: true }, 'policyConfig'],
  ] as const)('when %s gets %p, then VALIDATION_ERROR names %s', (policy, config, field) => {
    expect(fieldsOf(() => checkPolicyConfig(policy, config as Record<string, unknown>))).toContain(field);
  });

  it('when the create body pairs a policy with a config of another policy, then the schema refuses it', () => {
    const result = createBoxBodySchema.safeParse({
      claimId: 'claim_x',
      policy: 'TEAM',
      policyConfig: { royaltyRate: 0.2 },
    });
    expect(result.success).toBe(false);
    expect(updateBoxBodySchema.safeParse({ enforcement: 'STRICT' }).success).toBe(true);
    expect(updateBoxBodySchema.safeParse({}).success).toBe(false);
  });

  it('when a box is MONETIZE, then royaltyRate is its configured rate; any other policy, 0', () => {
    expect(royaltyRateOf({ policy: 'MONETIZE', policyConfig: { royaltyRate: 0.25 } })).toBe(0.25);
    expect(royaltyRateOf({ policy: 'MONETIZE', policyConfig: {} })).toBe(0);
    expect(royaltyRateOf({ policy: 'LICENSE', policyConfig: { licenseTypes: {} } })).toBe(0);
  });
});
