// A box's policyConfig is typed by its policy (issue #32): a configuration of the wrong shape fails
// to compile, where it used to compile and then answer 400. Type-checked by `make check`: each
// line marked to expect an error fails tsc if the SDK's types stop refusing it. Not run.
import { createSvcClient } from '../src';

export async function policyConfigTypes(): Promise<void> {
  const svc = createSvcClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'svc_test_example' });
  const claimId = 'clm_3kTq9wXz2LmN8bVc5hJr1s';
  const byBox = { params: { path: { id: 'box_3kTq9wXz2LmN8bVc5hJr1s' } } };

  // Each policy takes its own configuration.
  await svc.POST('/v1/svc/boxes', {
    body: { claimId, policy: 'MONETIZE', policyConfig: { royaltyRate: 0.15, revenueTypes: ['tips'] } },
  });
  await svc.POST('/v1/svc/boxes', {
    body: {
      claimId,
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true }, enterprise: {} } },
    },
  });
  await svc.POST('/v1/svc/boxes', {
    body: { claimId, policy: 'TEAM', policyConfig: { authorizedAccounts: ['a'] } },
  });
  await svc.POST('/v1/svc/boxes', { body: { claimId, policy: 'BLOCK_ALL' } });
  await svc.PATCH('/v1/svc/boxes/{id}', {
    ...byBox,
    body: { policy: 'LICENSE', policyConfig: { nsfw: false } },
  });
  await svc.PATCH('/v1/svc/boxes/{id}', { ...byBox, body: { enforcement: 'STRICT' } });

  await svc.POST('/v1/svc/boxes', {
    // @ts-expect-error licenseTypes is an object of tiers, not a list
    body: { claimId, policy: 'LICENSE', policyConfig: { licenseTypes: ['personal', 'commercial'] } },
  });
  await svc.POST('/v1/svc/boxes', {
    // @ts-expect-error royaltyRate belongs to MONETIZE, not LICENSE
    body: { claimId, policy: 'LICENSE', policyConfig: { royaltyRate: 0.2 } },
  });
  await svc.POST('/v1/svc/boxes', {
    // @ts-expect-error a revenue type outside the list
    body: { claimId, policy: 'MONETIZE', policyConfig: { revenueTypes: ['donations'] } },
  });
  await svc.POST('/v1/svc/boxes', {
    // @ts-expect-error BLOCK_ALL takes no configuration
    body: { claimId, policy: 'BLOCK_ALL', policyConfig: { allowedUses: ['parody'] } },
  });
  await svc.PATCH('/v1/svc/boxes/{id}', {
    ...byBox,
    // @ts-expect-error a new policy's configuration has that policy's shape
    body: { policy: 'TEAM', policyConfig: { royaltyRate: 0.1 } },
  });
}
