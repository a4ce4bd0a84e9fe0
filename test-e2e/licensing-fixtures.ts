import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { uniqueSuffix, waitFor } from '@svc/test-kit';
import { unwrap, type RequestBody, type Schemas, type SvcClient } from '@svc/sdk';
import { newPlatform as newPlatformOfHelpers, sdkFor } from './helpers';

// Shared steps of the licensing and billing end-to-end tests (issue #15): an identity claimed,
// verified and boxed by its owner, seen by licensing, and licensed by another platform. Calls go
// through @svc/sdk, as an integrator's would.

type BoxBody = RequestBody<'/v1/svc/boxes', 'post'>;
export type LicenseRequestBody = RequestBody<'/v1/svc/licenses/request', 'post'>;
export type LicenseTier = LicenseRequestBody['tier'];

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

/** The owner claims `name`, verifies it with the sandbox helper and boxes it (unwrap throws on a refusal). */
export async function boxedIdentity(
  owner: SvcClient,
  policy: BoxBody['policy'],
  policyConfig: BoxBody['policyConfig'] = {},
  name = uniqueName('Imogen'),
): Promise<Boxed> {
  const { data: claim } = await unwrap(
    owner.POST('/v1/svc/claims', {
      body: {
        name,
        entityType: 'INDIVIDUAL',
        referenceImages: [{ url: 'https://img.example.com/reference.jpg' }],
      },
    }),
  );
  await unwrap(
    owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: claim.id } }, body: {} }),
  );
  const { data: box } = await unwrap(
    // policyConfig is the caller's, of the policy's shape (the body is a union on policy).
    owner.POST('/v1/svc/boxes', { body: { claimId: claim.id, policy, policyConfig } as BoxBody }),
  );
  return { name, claimId: claim.id, boxId: box.id };
}

/** Second-family terms once licensing's box projection satisfies `ready` (it learns boxes from events). */
export function termsWhen(
  client: SvcClient,
  identityId: string,
  ready: (terms: Schemas['LicensingTerms']) => boolean = () => true,
): Promise<Schemas['LicensingTerms']> {
  return waitFor(
    async () => {
      const res = await client.GET('/licensing/terms/{identity_id}', {
        params: { path: { identity_id: identityId } },
      });
      return res.data !== undefined && ready(res.data) ? res.data : undefined;
    },
    { what: `licensing's terms of ${identityId}`, timeoutMs: 15_000 },
  );
}

/** A first-family license request body. */
export function requestBody(
  boxId: string,
  tier: LicenseTier,
  extra: Partial<LicenseRequestBody> = {},
): LicenseRequestBody {
  return { boxId, tier, useCase: 'Avatar chat', acceptGuidelines: true, ...extra };
}

/** A second-family license request body. */
export function secondFamilyRequest(identityId: string): RequestBody<'/licensing/request', 'post'> {
  return {
    identity_id: identityId,
    use_type: 'avatar',
    platform_description: 'Avatar chat',
    expected_usage: '1000 users a month',
  };
}

/** An auto-approved request of `tier`: the active license's id. */
export async function activeLicense(
  client: SvcClient,
  boxId: string,
  tier: LicenseTier,
  term = 1,
): Promise<string> {
  const { data: request } = await unwrap(
    client.POST('/v1/svc/licenses/request', { body: requestBody(boxId, tier, { term }) }),
  );
  if (request.status !== 'approved') throw new Error(`request: ${JSON.stringify(request)}`);
  const { data: read } = await unwrap(
    client.GET('/v1/svc/licenses/request/{id}', { params: { path: { id: request.id } } }),
  );
  if (read.license == null) throw new Error(`no license: ${JSON.stringify(read)}`);
  return read.license.id;
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

/** A new platform on the standard plan (the operator API): its id, its key and the SDK's client with it. */
export async function newPlatform(
  cluster: { gatewayUrl: string; adminToken: string },
  name: string,
): Promise<{ id: string; key: string; api: SvcClient }> {
  const { platformId, key } = await newPlatformOfHelpers(cluster, name);
  return { id: platformId, key, api: sdkFor(cluster.gatewayUrl, key) };
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
