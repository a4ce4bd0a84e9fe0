import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { uniqueSuffix, waitFor } from '@svc/test-kit';
import { call, type Reply } from './helpers';

// Shared steps of the licensing and billing end-to-end tests (issue #15): an identity claimed,
// verified and boxed by its owner, seen by licensing, and licensed by another platform.

/** A name nobody else's test uses (detection matches names across the whole cluster). */
export function uniqueName(first: string): string {
  const letters = uniqueSuffix()
    .replace(/[^a-z]/gi, '')
    .slice(0, 8)
    .toLowerCase();
  return `${first} Q${letters || 'x'}ington`;
}

export interface Boxed {
  name: string;
  claimId: string;
  boxId: string;
}

/** The owner claims `name`, verifies it with the sandbox helper and boxes it. */
export async function boxedIdentity(
  gw: string,
  owner: string,
  policy: string,
  policyConfig: Record<string, unknown> = {},
  name = uniqueName('Imogen'),
): Promise<Boxed> {
  const claim = await call(gw, owner, 'POST', '/v1/svc/claims', {
    name,
    entityType: 'INDIVIDUAL',
    referenceImages: [{ url: 'https://img.example.com/reference.jpg' }],
  });
  if (claim.status !== 201) throw new Error(`claim: ${JSON.stringify(claim.body)}`);
  const claimId = claim.body.data.id as string;
  const verified = await call(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {});
  if (verified.status !== 200) throw new Error(`verify: ${JSON.stringify(verified.body)}`);
  const box = await call(gw, owner, 'POST', '/v1/svc/boxes', { claimId, policy, policyConfig });
  if (box.status !== 201) throw new Error(`box: ${JSON.stringify(box.body)}`);
  return { name, claimId, boxId: box.body.data.id as string };
}

/** Second-family terms once licensing's box projection satisfies `ready` (it learns boxes from events). */
export function termsWhen(
  gw: string,
  key: string,
  identityId: string,
  ready: (terms: Reply) => boolean = () => true,
): Promise<Reply> {
  return waitFor(
    async () => {
      const res = await call(gw, key, 'GET', `/licensing/terms/${identityId}`);
      return res.status === 200 && ready(res) ? res : undefined;
    },
    { what: `licensing's terms of ${identityId}`, timeoutMs: 15_000 },
  );
}

/** A first-family license request body. */
export function requestBody(boxId: string, tier: string, extra: Record<string, unknown> = {}) {
  return { boxId, tier, useCase: 'Avatar chat', acceptGuidelines: true, ...extra };
}

/** A second-family license request body. */
export function secondFamilyRequest(identityId: string) {
  return {
    identity_id: identityId,
    use_type: 'avatar',
    platform_description: 'Avatar chat',
    expected_usage: '1000 users a month',
  };
}

/** An auto-approved request of `tier`: the active license's id. */
export async function activeLicense(gw: string, key: string, boxId: string, tier: string, term = 1) {
  const res = await call(gw, key, 'POST', '/v1/svc/licenses/request', requestBody(boxId, tier, { term }));
  if (res.status !== 201 || res.body.data.status !== 'approved')
    throw new Error(`request: ${res.status} ${JSON.stringify(res.body)}`);
  const read = await call(gw, key, 'GET', `/v1/svc/licenses/request/${res.body.data.id}`);
  return read.body.data.license.id as string;
}

/** A local server of one PNG picture (the check fetches its imageUrl; private fetches allowed in the test). */
export async function pictureServer(): Promise<{ url: string; close(): Promise<void> }> {
  const png = await sharp({
    create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 120, b: 40 } },
  })
    .png()
    .toBuffer();
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' }).end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/avatar.png`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A new platform on the standard plan and its key (the operator API), with its id. */
export async function newPlatform(
  cluster: { gatewayUrl: string; adminToken: string },
  name: string,
): Promise<{ id: string; key: string }> {
  const platform = await call(cluster.gatewayUrl, cluster.adminToken, 'POST', '/admin/platforms', {
    name: `${name} ${uniqueSuffix()}`,
    plan: 'standard',
  });
  const id = platform.body.data.id as string;
  const key = await call(cluster.gatewayUrl, cluster.adminToken, 'POST', `/admin/platforms/${id}/keys`, {});
  return { id, key: key.body.data.key as string };
}

/** Webhook bodies received by a local endpoint (private fetches allowed in the test). */
export async function webhookReceiver(): Promise<{
  url: string;
  bodies: Record<string, any>[];
  close(): Promise<void>;
}> {
  const bodies: Record<string, any>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
