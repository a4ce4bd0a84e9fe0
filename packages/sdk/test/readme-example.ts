// The README's TypeScript walk-through, type-checked by `make check` (test/unit/readme-example.test.ts
// fails when README.md and this file differ). Not run: test-e2e drives the same story.
import { readFileSync } from 'node:fs';
import { createSvcClient, isApiError, paginate, rateLimitOf, unwrap, verifyWebhook } from '../src';
// --- README ---
export async function walkthrough(): Promise<unknown> {

const baseUrl = 'http://127.0.0.1:8080';
const picture = `${baseUrl}/samples/sample-portrait.png`; // sample pictures a sandbox gateway serves
const avatarPicture = `${baseUrl}/samples/sample-avatar.png`;
const owner = createSvcClient({ baseUrl, apiKey: readFileSync('.data/bootstrap-key', 'utf8').trim() });
const operator = createSvcClient({ baseUrl, apiKey: readFileSync('.data/admin-token', 'utf8').trim() });

// The operator registers a second platform and issues it a key (shown once).
const { data: platform } = await unwrap(
  operator.POST('/admin/platforms', { body: { name: 'Avatarly', plan: 'basic', domain: 'avatarly.io' } }),
);
const { data: issued } = await unwrap(
  operator.POST('/admin/platforms/{id}/keys', { params: { path: { id: platform.id } }, body: {} }),
);
const avatarly = createSvcClient({ baseUrl, apiKey: issued.key });

// Every answer to a keyed request carries X-RateLimit-*.
const listed = await owner.GET('/v1/svc/claims');
console.log(rateLimitOf(listed.response)); // { limit: 60, remaining: 59, reset: 1795781700 }

// Claim an identity, verify it (sandbox test helper, then the operator), protect it with a box.
const { data: claim } = await unwrap(
  owner.POST('/v1/svc/claims', {
    body: {
      name: 'Ada Lovelace',
      variations: ['Countess of Lovelace'],
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: picture, isPrimary: true }],
    },
  }),
); // claim.status 'pending', claim.verificationTier 'BRONZE', claim.nextStep.url
const byClaim = { params: { path: { id: claim.id } } };
await unwrap(owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { ...byClaim, body: { tier: 'SILVER' } }));
await unwrap(operator.POST('/admin/claims/{id}/verify', { ...byClaim, body: { tier: 'GOLD' } }));
const { data: box } = await unwrap(
  owner.POST('/v1/svc/boxes', {
    body: { claimId: claim.id, policy: 'MONETIZE', enforcement: 'MODERATE', policyConfig: { royaltyRate: 0.15 } },
  }),
);
for await (const each of paginate(owner, '/v1/svc/boxes', { params: { query: { policy: 'MONETIZE' } } })) {
  console.log(each.id, each.royaltyRate);
}
const stats = await unwrap(owner.GET('/v1/svc/boxes/{id}/stats', { params: { path: { id: box.id } } }));

// Check identities before creating an avatar (the result is not wrapped in data).
const check = await unwrap(
  avatarly.POST('/v1/svc/identity/check', {
    body: { name: 'Ada  Lovelase', imageUrl: avatarPicture, context: 'personal fan art' },
  }),
); // check.isBoxed true, check.action 'TRACK_REVENUE'
const batch = await unwrap(
  avatarly.POST('/v1/svc/identity/check/batch', {
    body: {
      identities: [
        { id: 'a1', name: 'Ada Lovelace', imageUrl: avatarPicture },
        { id: 'a2', name: 'Grace Hopper', imageUrl: avatarPicture },
      ],
    },
  }),
);
const second = await unwrap(
  avatarly.POST('/identity/check', { body: { name: 'Ada Lovelace', image_url: avatarPicture, use_type: 'avatar' } }),
); // second.status 'BOXED'

// Report a hosted avatar: a violation and its grace period; appeal it; move the sandbox clock.
await unwrap(
  avatarly.POST('/v1/svc/avatars', { body: { id: 'avatar-1', name: 'Ada Lovelace', creatorId: 'c1', userCount: 1200 } }),
);
const { data: pending } = await unwrap(
  avatarly.GET('/v1/svc/violations', { params: { query: { status: 'pending' } } }),
);
const byViolation = { params: { path: { id: pending[0]!.id } } };
await unwrap(
  avatarly.POST('/v1/svc/violations/{id}/appeal', {
    ...byViolation,
    body: { reason: 'parody', explanation: 'A comedy sketch character' },
  }),
);
await unwrap(avatarly.POST('/v1/svc/test-helpers/advance-time', { body: { seconds: 3600 } }));
const obligations = await unwrap(avatarly.GET('/enforcement/obligations')); // the paused grace period

// License it instead: approved at once on a MONETIZE box, which resolves the violation.
const { data: request } = await unwrap(
  avatarly.POST('/v1/svc/licenses/request', {
    body: { boxId: box.id, tier: 'creator', useCase: 'AI companion', acceptGuidelines: true },
  }),
);
const { data: decided } = await unwrap(
  avatarly.GET('/v1/svc/licenses/request/{id}', { params: { path: { id: request.id } } }),
);
const licenseId = decided.license!.id;

// Report this month's usage, then correct it in the second family; both sides of the balance.
const period = new Date().toISOString().slice(0, 7);
await unwrap(
  avatarly.POST('/v1/svc/licenses/{id}/usage', {
    params: { path: { id: licenseId } },
    body: { period, metrics: { subscribers: 1200, messages: 45000 }, revenue: { subscriptions: 20, messages: 10.33, tips: 3 } },
  }),
); // royaltyDue 5
await unwrap(
  avatarly.POST('/revenue/report', {
    body: { license_id: licenseId, period, metrics: { interactions: 5000, unique_users: 321, revenue_generated: 1000.04 } },
  }),
); // version 2, royalty_due 150.01
const owes = await unwrap(avatarly.GET('/revenue/balance')); // balance 150.01
const owed = await unwrap(owner.GET('/revenue/balance')); // receivable 150.01

// Errors are typed, with the closed set of codes.
try {
  await unwrap(avatarly.GET('/v1/svc/boxes/{id}/stats', { params: { path: { id: box.id } } }));
} catch (err) {
  if (isApiError(err, 'NOT_FOUND')) console.log('only the owner reads statistics', err.requestId);
  else throw err;
}

// Rotation: the old key keeps working for 24 hours, then answers 401 KEY_EXPIRED.
await unwrap(operator.POST('/admin/keys/{id}/rotate', { params: { path: { id: issued.id } } }));

// Webhooks: register an endpoint (the secret is shown once), send yourself a test event, and
// verify each delivery in your handler from the raw body.
const { data: endpoint } = await unwrap(
  owner.POST('/v1/svc/webhooks', {
    body: { url: 'https://example.com/hooks', events: ['grace_period.started', 'license.approved'] },
  }),
);
await unwrap(
  owner.POST('/v1/svc/webhooks/test', { body: { endpointId: endpoint.id, type: 'grace_period.started' } }),
);
// In the handler: const event = verifyWebhook(endpoint.secret, rawBody, request.headers);
// --- README ---
  return [stats, check, batch, second, obligations, owes, owed, verifyWebhook, listed];
}
