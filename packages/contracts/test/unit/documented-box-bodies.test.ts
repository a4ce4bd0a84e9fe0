import {
  createBoxBodySchema,
  createBoxDocumentedBodySchema,
  policyConfigSchemas,
  updateBoxBodySchema,
  updateBoxDocumentedBodySchema,
} from '../../src/registry/box-policy-config.schemas';

// The document (and the SDK's types) describes a box's body as a union on `policy`, where the
// validator checks policyConfig against the policy in a refinement (issue #32). Over every
// combination of the values below, the two must give the same answer: a client the compiler lets
// through is not refused, and one it refuses would have been.
const claimId = 'clm_3kTq9wXz2LmN8bVc5hJr1s';
const policies = [undefined, 'MONETIZE', 'LICENSE', 'TEAM', 'BLOCK_COMMERCIAL', 'BLOCK_ALL', 'OPEN', 'NOPE'];
const enforcements = [undefined, 'STRICT', 'LOOSE'];
const configs: unknown[] = [
  undefined,
  {},
  { royaltyRate: 0.15, revenueTypes: ['tips', 'ads'], minimumPayout: 10 },
  { royaltyRate: 1.5 },
  { revenueTypes: ['donations'] },
  { licenseTypes: { personal: { price: 5, autoApprove: true }, enterprise: {} } },
  { licenseTypes: ['personal', 'commercial'] },
  { licenseTypes: { personal: { price: -1 } } },
  { nsfw: true, contentGuidelines: 'https://example.test/rules' },
  { authorizedAccounts: ['ada@example.test'], platformWhitelist: ['avatarly.io'] },
  { allowedUses: ['parody', 'educational'] },
  { allowedUses: ['commercial'] },
  { unknownSetting: 1 },
  ['not', 'an', 'object'],
  'MONETIZE',
];

function* bodies(withClaim: boolean): Generator<Record<string, unknown>> {
  for (const policy of policies) {
    for (const enforcement of enforcements) {
      for (const policyConfig of configs) {
        const body: Record<string, unknown> = withClaim ? { claimId } : {};
        if (policy !== undefined) body.policy = policy;
        if (enforcement !== undefined) body.enforcement = enforcement;
        if (policyConfig !== undefined) body.policyConfig = policyConfig;
        yield body;
      }
    }
  }
}

const acceptedByAnyPolicy = (config: unknown) =>
  Object.values(policyConfigSchemas).some((schema) => schema.safeParse(config).success);

describe('the documented box bodies', () => {
  it('when a create body is given, then the documented union accepts it exactly when the validator does', () => {
    const disagreements: unknown[] = [];
    let accepted = 0;
    for (const body of bodies(true)) {
      const validator = createBoxBodySchema.safeParse(body).success;
      if (validator) accepted += 1;
      if (createBoxDocumentedBodySchema.safeParse(body).success !== validator) disagreements.push(body);
    }
    expect(disagreements).toEqual([]);
    // Both answers occur: the comparison is not between two schemas that accept nothing.
    expect(accepted).toBeGreaterThan(20);
    expect(accepted).toBeLessThan(policies.length * enforcements.length * configs.length);
  });

  it('when an update body is given, then the documented union accepts it when the validator does, and a body only the validator lets through names a configuration no policy takes', () => {
    const disagreements: unknown[] = [];
    for (const body of bodies(false)) {
      const validator = updateBoxBodySchema.safeParse(body).success;
      const documented = updateBoxDocumentedBodySchema.safeParse(body).success;
      if (validator === documented) continue;
      // Without a new policy the validator leaves the configuration to the service, which checks
      // it against the box's current policy: one that no policy accepts is refused there (400).
      const leftToTheService =
        validator && body.policy === undefined && !acceptedByAnyPolicy(body.policyConfig);
      if (!leftToTheService) disagreements.push(body);
    }
    expect(disagreements).toEqual([]);
    expect(updateBoxDocumentedBodySchema.safeParse({ policyConfig: { royaltyRate: 0.2 } }).success).toBe(
      true,
    );
    expect(
      updateBoxDocumentedBodySchema.safeParse({ policy: 'TEAM', policyConfig: { royaltyRate: 0.2 } }).success,
    ).toBe(false);
  });
});
