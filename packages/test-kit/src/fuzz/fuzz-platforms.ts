import { requestJson } from '../http';

// The fuzz's two platforms: the attacker whose key sends the requests and the victim whose resources must stay untouched.

export type JsonObject = Record<string, unknown>;
interface Platform {
  id: string;
  key: string;
  keyId: string;
}

export interface Victim {
  platform: Platform;
  /** Strings only the victim's private resources hold: none may reach the attacker. */
  markers: string[];
  /** Ids of the victim's resources (public and private) the attacker aims at. */
  ids: string[];
  /** Paths (read with the victim's key) and the fields that must not change. */
  reads: { path: string; fields: string[] }[];
}

export const letters = (n: number): string =>
  Array.from({ length: n }, () => 'bcdfghjklmnpqrstvwxz'[Math.floor(Math.random() * 20)]).join('');

function expectStatus(
  what: string,
  reply: { status: number; body: unknown },
  expected: number[],
): JsonObject {
  if (!expected.includes(reply.status)) {
    throw new Error(`fuzz set-up: ${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return ((reply.body as JsonObject | undefined)?.data ?? reply.body ?? {}) as JsonObject;
}

export async function newPlatform(gatewayUrl: string, adminToken: string, name: string): Promise<Platform> {
  const platform = expectStatus(
    'create platform',
    // Enterprise limits high enough that the fuzz is never rate limited as a whole.
    await requestJson(gatewayUrl, adminToken, 'POST', '/admin/platforms', {
      name,
      plan: 'enterprise',
      limits: { perMinute: 1_000_000, perDay: 100_000_000 },
    }),
    [201],
  );
  const key = expectStatus(
    'issue key',
    await requestJson(gatewayUrl, adminToken, 'POST', `/admin/platforms/${String(platform.id)}/keys`, {}),
    [201],
  );
  return { id: String(platform.id), key: String(key.key), keyId: String(key.id) };
}

/** A platform's typical resources: a verified claim with a box, a pending claim, an avatar, a webhook. */
export async function resourcesOf(gatewayUrl: string, platform: Platform, marker: string) {
  const call = (method: string, path: string, body?: unknown) =>
    requestJson(gatewayUrl, platform.key, method, path, body);
  const claim = expectStatus(
    'create claim',
    await call('POST', '/v1/svc/claims', {
      name: `Quorvex ${marker}`,
      variations: [`Q ${marker}`],
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.invalid/ref.png', isPrimary: true }],
    }),
    [201],
  );
  const claimId = String(claim.id);
  expectStatus(
    'verify claim',
    await call('POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, { tier: 'GOLD' }),
    [200],
  );
  const box = expectStatus(
    'create box',
    await call('POST', '/v1/svc/boxes', {
      claimId,
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 10, autoApprove: true }, creator: { price: 50 } } },
    }),
    [201],
  );
  const pending = expectStatus(
    'create pending claim',
    await call('POST', '/v1/svc/claims', {
      name: `Pendrix ${marker}`,
      entityType: 'ESTATE',
      referenceImages: [{ url: 'https://img.invalid/p.png' }],
    }),
    [201],
  );
  const avatarId = `avatar-${marker}`;
  expectStatus(
    'report avatar',
    await call('POST', '/v1/svc/avatars', {
      id: avatarId,
      name: `Avatarix ${marker}`,
      description: `private description ${marker}`,
      creatorId: `creator-${marker}`,
      creatorEmail: `${marker}@example.com`,
      userCount: 5,
    }),
    [200, 201],
  );
  const hook = await call('POST', '/v1/svc/webhooks', {
    url: `https://hooks.invalid/${marker}`,
    description: `hook ${marker}`,
  });
  const webhookId = hook.status === 201 ? String((hook.body as { data: JsonObject }).data.id) : undefined;
  return { claimId, boxId: String(box.id), pendingClaimId: String(pending.id), avatarId, webhookId };
}

export async function readVictim(gatewayUrl: string, victim: Victim): Promise<string[]> {
  const seen: string[] = [];
  for (const { path, fields } of victim.reads) {
    const reply = await requestJson(gatewayUrl, victim.platform.key, 'GET', path);
    const data = ((reply.body as JsonObject | undefined)?.data ?? {}) as JsonObject;
    seen.push(`${path} ${reply.status} ${JSON.stringify(fields.map((f) => data[f]))}`);
  }
  return seen;
}
