import { generateKeyPairSync } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
} from 'jose';
import { StatusList } from '@sd-jwt/jwt-status-list';
import { clockAdvanced } from '@svc/contracts/enforcement';
import { startLicensingHarness, type Client, type LicensingHarness } from '../fixtures/licensing-harness';

// Contracts §16: credentials anyone verifies with the published keys alone, and the status list.
let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

const ISSUER = 'http://localhost:8080';
const LIST_URI = `${ISSUER}/v1/svc/status-lists/1`;

async function keySet() {
  const res = await h.platform().call('GET', '/.well-known/jwks.json');
  expect(res.status).toBe(200);
  return createLocalJWKSet(res.body);
}

async function credentialOf(client: Client, licenseId: string) {
  const res = await client.call('GET', `/v1/svc/licenses/${licenseId}/credential`);
  expect(res.status).toBe(200);
  return res.body.data as { credential: string; expiresAt: string };
}

/** A decoded status list: the bit of each index (LSB first, as the IETF Token Status List packs them). */
interface Bits {
  getStatus(idx: number): number;
}

/** The status list read and verified as a third party would (@sd-jwt/jwt-status-list decodes it when `library`). */
async function statusList(library = false): Promise<Bits> {
  const res = await h.platform().call('GET', '/v1/svc/status-lists/1');
  expect(res.status).toBe(200);
  const { payload } = await jwtVerify(res.body as string, await keySet(), {
    typ: 'statuslist+jwt',
    subject: LIST_URI,
    currentDate: h.clock.now(),
  });
  const list = payload.status_list as { bits: 1; lst: string };
  expect(list.bits).toBe(1);
  if (library) return StatusList.decompressStatusList(list.lst, 1);
  // The library decodes 2^20 entries through strings (a second or more under Jest): zlib reads the same bytes.
  const bytes = inflateSync(Buffer.from(list.lst, 'base64url'));
  expect(bytes.length).toBe(2 ** 17);
  return { getStatus: (idx) => ((bytes[idx >> 3] ?? 0) >> (idx & 7)) & 1 };
}

function idxOf(credential: string): number {
  return (decodeJwt(credential).status as { idx: number }).idx;
}

describe('GET /v1/svc/licenses/:id/credential', () => {
  it('when the licensee asks, then a credential that verifies with the JWKS alone, with the claims of §16', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    const { credential, expiresAt } = await credentialOf(client, license.id);
    expect(expiresAt).toBe(license.expiresAt);
    const { payload, protectedHeader } = await jwtVerify(credential, await keySet(), {
      issuer: ISSUER,
      typ: 'license+jwt',
      currentDate: h.clock.now(),
    });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'license+jwt' });
    expect(typeof protectedHeader.kid).toBe('string');
    expect(payload).toMatchObject({
      iss: ISSUER,
      sub: license.id,
      iat: Date.parse('2026-11-22T10:00:00.000Z') / 1000,
      nbf: Date.parse(license.validFrom) / 1000,
      exp: Date.parse(license.expiresAt) / 1000,
      boxId: box.boxId,
      claimId: box.claimId,
      identityName: 'Ada Lovelace',
      platformId: client.platformId,
      tier: 'personal',
      allowedUses: ['personal'],
    });
    const status = payload.status as { idx: number; uri: string; status_list: unknown };
    expect(status).toEqual({
      idx: status.idx,
      uri: LIST_URI,
      status_list: { idx: status.idx, uri: LIST_URI },
    });
  });

  it('when the box owner asks, then the same credential; another platform 404', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    const own = await credentialOf(client, license.id);
    expect(await credentialOf(box.owner, license.id)).toEqual(own);
    const stranger = await h.platform().call('GET', `/v1/svc/licenses/${license.id}/credential`);
    expect(stranger.status).toBe(404);
    expect((await client.call('GET', '/v1/svc/licenses/lic_nope/credential')).status).toBe(404);
  });

  it('when one byte of a credential changes, then its signature fails', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const { credential } = await credentialOf(client, license.id);
    const [header, payload, signature] = credential.split('.') as [string, string, string];
    // The licensee promotes itself to enterprise: the claims change, the signature does not.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, tier: 'enterprise' })).toString('base64url');
    const keys = await keySet();
    await expect(
      jwtVerify(`${header}.${forged}.${signature}`, keys, { currentDate: h.clock.now() }),
    ).rejects.toBeInstanceOf(joseErrors.JWSSignatureVerificationFailed);
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    await expect(
      jwtVerify(`${header}.${payload}.${flipped}`, keys, { currentDate: h.clock.now() }),
    ).rejects.toBeInstanceOf(joseErrors.JWSSignatureVerificationFailed);
  });

  it('when the license period has ended, then the credential is refused as expired', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const { credential } = await credentialOf(client, license.id);
    const after = new Date(Date.parse(license.expiresAt) + 1000);
    await expect(jwtVerify(credential, await keySet(), { currentDate: after })).rejects.toMatchObject({
      code: 'ERR_JWT_EXPIRED',
      claim: 'exp',
    });
  });

  it('when a credential is signed by a key the JWKS does not list, then it is refused', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const claims = decodeJwt((await credentialOf(client, license.id)).credential);
    const { privateKey } = generateKeyPairSync('ed25519');
    const stranger = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'not-ours', typ: 'license+jwt' })
      .sign(privateKey);
    await expect(jwtVerify(stranger, await keySet(), { currentDate: h.clock.now() })).rejects.toBeInstanceOf(
      joseErrors.JWKSNoMatchingKey,
    );
  });

  it('when the license is renewed, then a new credential runs to the new expiry and the old one still verifies', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const before = await credentialOf(client, license.id);
    h.clock.advance(60_000);
    const renewed = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 2 });
    expect(renewed.status).toBe(200);
    const after = await credentialOf(client, license.id);
    expect(after.credential).not.toBe(before.credential);
    expect(after.expiresAt).toBe(renewed.body.data.newExpiry);
    const keys = await keySet();
    const { payload } = await jwtVerify(after.credential, keys, { currentDate: h.clock.now() });
    expect(payload.exp).toBe(Date.parse(renewed.body.data.newExpiry) / 1000);
    // The same place in the status list: one license, one bit.
    expect(idxOf(after.credential)).toBe(idxOf(before.credential));
    await jwtVerify(before.credential, keys, { currentDate: h.clock.now() });
  });

  it('when the license is not active, then 409 INVALID_STATE naming its status', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    expect((await client.call('DELETE', `/v1/svc/licenses/${license.id}`)).status).toBe(200);
    const res = await client.call('GET', `/v1/svc/licenses/${license.id}/credential`);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'cancelled' } });
  });

  it('when an upgrade is approved, then the credential carries the new tier and its uses', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    const renewed = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, {
      term: 1,
      tier: 'commercial',
    });
    expect(renewed.status).toBe(202);
    const requestId = renewed.body.data.pendingUpgrade.requestId;
    expect((await box.owner.call('POST', `/v1/svc/license-requests/${requestId}/approve`)).status).toBe(200);
    const { payload } = await jwtVerify((await credentialOf(client, license.id)).credential, await keySet(), {
      currentDate: h.clock.now(),
    });
    expect(payload).toMatchObject({
      tier: 'commercial',
      allowedUses: ['personal', 'creator_content', 'commercial'],
    });
  });
});

describe('GET /v1/svc/status-lists/:id and /.well-known/jwks.json', () => {
  it('when read, then a public, cacheable status list JWT and key set', async () => {
    const list = await h.platform().call('GET', '/v1/svc/status-lists/1');
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/statuslist\+jwt/);
    expect(list.headers.get('cache-control')).toBe('public, max-age=30');
    const header = decodeProtectedHeader(list.body as string);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'statuslist+jwt' });
    const claims = decodeJwt(list.body as string);
    expect(claims).toMatchObject({ sub: LIST_URI, ttl: 30 });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(600);
    const decoded = await statusList(true);
    expect(decoded.getStatus(2 ** 20 - 1)).toBe(0);
    expect(() => decoded.getStatus(2 ** 20)).toThrow();

    const keys = await h.platform().call('GET', '/.well-known/jwks.json');
    expect(keys.headers.get('cache-control')).toBe('public, max-age=300');
    expect(keys.body.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: header.kid, alg: 'EdDSA', use: 'sig' },
    ]);
    expect((await h.platform().call('GET', '/v1/svc/status-lists/2')).status).toBe(404);
  });

  it('when licenses are revoked, cancelled and expired by the sandbox clock, then their bits are 1 and the others 0', async () => {
    const client = h.platform();
    const revoked = await h.activeLicense(client);
    const cancelled = await h.activeLicense(client);
    const lapsing = await h.activeLicense(client, { autoRenew: false });
    const renewing = await h.activeLicense(client);
    const kept = await h.activeLicense(client, { autoRenew: false, term: 3 });
    const idx = async (l: { license: { id: string } }) =>
      idxOf((await credentialOf(client, l.license.id)).credential);
    const [iRevoked, iCancelled, iLapsing, iRenewing, iKept] = [
      await idx(revoked),
      await idx(cancelled),
      await idx(lapsing),
      await idx(renewing),
      await idx(kept),
    ];
    expect(new Set([iRevoked, iCancelled, iLapsing, iRenewing, iKept]).size).toBe(5);
    const renewingCredential = await credentialOf(client, renewing.license.id);
    let list = await statusList();
    expect([iRevoked, iCancelled, iLapsing, iRenewing, iKept].map((i) => list.getStatus(i))).toEqual([
      0, 0, 0, 0, 0,
    ]);

    expect(
      (await revoked.box.owner.call('POST', `/v1/svc/licenses/${revoked.license.id}/revoke`)).status,
    ).toBe(200);
    expect((await client.call('DELETE', `/v1/svc/licenses/${cancelled.license.id}`)).status).toBe(200);
    list = await statusList();
    expect([iRevoked, iCancelled, iLapsing].map((i) => list.getStatus(i))).toEqual([1, 1, 0]);

    // The sandbox clock passes the end of the one-month licenses: the lapse shows before the expiry
    // job runs (whatever its interval), and stays once it has.
    h.clock.set(new Date(Date.parse(lapsing.license.expiresAt) + 1000).toISOString());
    list = await statusList();
    expect([iLapsing, iRenewing, iKept].map((i) => list.getStatus(i))).toEqual([1, 0, 0]);
    await h.running.expireDueLicenses();
    expect((await client.call('GET', `/v1/svc/licenses/${lapsing.license.id}`)).body.data.status).toBe(
      'expired',
    );
    list = await statusList();
    expect([iRevoked, iCancelled, iLapsing, iRenewing, iKept].map((i) => list.getStatus(i))).toEqual([
      1, 1, 1, 0, 0,
    ]);
    // The auto-renewed license has a credential for its new period.
    const renewedDetail = (await client.call('GET', `/v1/svc/licenses/${renewing.license.id}`)).body.data;
    expect(renewedDetail.expiresAt > renewing.license.expiresAt).toBe(true);
    const renewedCredential = await credentialOf(client, renewing.license.id);
    expect(renewedCredential.expiresAt).toBe(renewedDetail.expiresAt);
    expect(renewedCredential.credential).not.toBe(renewingCredential.credential);
  });
});

describe("a platform's sandbox clock (enforcement.clock.advanced)", () => {
  it('when a licensee moves its clock past the end of its licenses, then the lapsed one is 1 in the list, the renewed one has a new credential, a bystander stays 0', async () => {
    const mover = h.platform();
    const bystander = h.platform();
    const lapsing = await h.activeLicense(mover, { autoRenew: false });
    const renewing = await h.activeLicense(mover);
    const other = await h.activeLicense(bystander, { autoRenew: false });
    const before = await credentialOf(mover, renewing.license.id);
    const [iLapsing, iRenewing, iOther] = [
      idxOf((await credentialOf(mover, lapsing.license.id)).credential),
      idxOf(before.credential),
      idxOf((await credentialOf(bystander, other.license.id)).credential),
    ];
    const now = new Date(Date.parse(lapsing.license.expiresAt) + 86_400_000);
    const advancedBySeconds = (now.getTime() - h.clock.now().getTime()) / 1000;
    await h.publish(
      clockAdvanced.create(
        { platformId: mover.platformId, now: now.toISOString(), advancedBySeconds },
        { occurredAt: now, platformId: mover.platformId },
      ),
    );
    await h.waitForEvent('licensing.license.expired', (e) => e.data.licenseId === lapsing.license.id);
    const list = await statusList();
    expect([iLapsing, iRenewing, iOther].map((i) => list.getStatus(i))).toEqual([1, 0, 0]);
    const after = await credentialOf(mover, renewing.license.id);
    expect(after.expiresAt > before.expiresAt).toBe(true);
    expect(decodeJwt(after.credential).iat).toBe(Math.floor(now.getTime() / 1000));
  });
});

describe('the generated sandbox key', () => {
  it('when the service restarts, then it signs with the same key and earlier credentials still verify', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const { credential } = await credentialOf(client, license.id);
    const before = (await h.platform().call('GET', '/.well-known/jwks.json')).body;
    await h.restart();
    const after = (await h.platform().call('GET', '/.well-known/jwks.json')).body;
    expect(after).toEqual(before);
    await jwtVerify(credential, createLocalJWKSet(after), { currentDate: h.clock.now() });
  });
});
