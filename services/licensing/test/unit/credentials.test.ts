import { generateKeyPairSync } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { calculateJwkThumbprint, createLocalJWKSet, jwtVerify } from 'jose';
import { StatusList } from '@sd-jwt/jwt-status-list';
import { allowedUsesOf, signCredential, statusListUri } from '../../src/domain/credentials';
import type { License } from '../../src/domain/license';
import {
  generatePrivateJwk,
  jwksOf,
  retire,
  retiredKeysFrom,
  signingKeyFrom,
  SigningKeyError,
} from '../../src/domain/signing-keys';
import { encodeStatusList, StatusListPublisher } from '../../src/domain/status-list';

const license: License = {
  id: 'lic_1',
  requestId: 'req_1',
  boxId: 'box_1',
  claimId: 'claim_1',
  identityName: 'Ada Lovelace',
  boxOwnerPlatformId: 'plat_owner',
  licenseePlatformId: 'plat_licensee',
  licenseePlatformName: 'Licensee',
  tier: 'creator',
  status: 'active',
  monthlyFeeCents: 4999n,
  royaltyRate: 0,
  currency: 'USD',
  terms: { maxUsers: null, contentGuidelines: null, nsfw: true, exclusivity: false, territory: 'worldwide' },
  termMonths: 1,
  autoRenew: true,
  validFrom: new Date('2026-11-22T10:00:00.000Z'),
  expiresAt: new Date('2026-12-22T10:00:00.000Z'),
  cancelAt: null,
  cancelReason: null,
  endedAt: null,
  createdAt: new Date('2026-11-22T10:00:00.000Z'),
};

describe('encodeStatusList', () => {
  it('when decoded by @sd-jwt/jwt-status-list, then exactly the invalid indexes are 1', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 1023 }), { maxLength: 64 }), (invalid) => {
        const decoded = StatusList.decompressStatusList(encodeStatusList(1024, invalid), 1);
        const ones = Array.from({ length: 1024 }, (_, i) => i).filter((i) => decoded.getStatus(i) === 1);
        expect(ones).toEqual([...invalid].sort((a, b) => a - b));
      }),
      { numRuns: 30 },
    );
  });

  it('when given the bits the library would be, then the same bytes once inflated', () => {
    const list = new StatusList(new Array<number>(4096).fill(0), 1);
    for (const i of [0, 7, 8, 1000, 4095]) list.setStatus(i, 1);
    const bytes = (lst: string) => inflateSync(Buffer.from(lst, 'base64url'));
    expect(bytes(encodeStatusList(4096, [0, 7, 8, 1000, 4095]))).toEqual(bytes(list.compressStatusList()));
  });

  it('when an index is outside the list, then it is refused', () => {
    expect(() => encodeStatusList(8, [8])).toThrow(RangeError);
    expect(() => encodeStatusList(8, [-1])).toThrow(RangeError);
  });
});

describe('credential claims', () => {
  it('allowedUses grow with the tier, with nsfw only when the terms allow it', () => {
    expect(allowedUsesOf('personal', { nsfw: false })).toEqual(['personal']);
    expect(allowedUsesOf('creator', { nsfw: true })).toEqual(['personal', 'creator_content', 'nsfw']);
    expect(allowedUsesOf('enterprise', { nsfw: false })).toEqual([
      'personal',
      'creator_content',
      'commercial',
      'enterprise',
    ]);
  });

  it('when signed, then it verifies against the JWKS with its status list entry under both names', async () => {
    const key = await signingKeyFrom(JSON.stringify(await generatePrivateJwk()));
    const jwt = await signCredential(
      key,
      'https://api.example.com/',
      license,
      { listId: 1, idx: 42 },
      license.validFrom,
    );
    const keys = createLocalJWKSet(jwksOf({ current: key, retired: [] }, new Date()));
    const { payload } = await jwtVerify(jwt, keys, {
      issuer: 'https://api.example.com',
      currentDate: new Date('2026-12-01T00:00:00.000Z'),
    });
    const uri = 'https://api.example.com/v1/svc/status-lists/1';
    expect(statusListUri('https://api.example.com/', 1)).toBe(uri);
    expect(payload).toMatchObject({
      sub: 'lic_1',
      platformId: 'plat_licensee',
      tier: 'creator',
      allowedUses: ['personal', 'creator_content', 'nsfw'],
      status: { idx: 42, uri, status_list: { idx: 42, uri } },
    });
  });
});

describe('signing keys', () => {
  it('when the key is a PKCS#8 PEM, then its kid is the RFC 7638 thumbprint', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const key = await signingKeyFrom(privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    const x = publicKey.export({ format: 'jwk' }).x as string;
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x }));
    expect(key.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x, kid: key.kid, alg: 'EdDSA', use: 'sig' });
  });

  it('when the key is a JWK with a kid, then that kid is kept; a public-only JWK is refused', async () => {
    const jwk = { ...(await generatePrivateJwk()), kid: '2026-11' };
    expect((await signingKeyFrom(JSON.stringify(jwk))).kid).toBe('2026-11');
    const { d: _d, ...publicOnly } = jwk;
    await expect(signingKeyFrom(JSON.stringify(publicOnly))).rejects.toBeInstanceOf(SigningKeyError);
  });

  it('when the retired file holds a private key or a key without notAfter, then it is refused', async () => {
    const jwk = await generatePrivateJwk();
    expect(() => retiredKeysFrom(JSON.stringify([{ ...jwk, notAfter: '2027-01-01T00:00:00Z' }]))).toThrow(
      /holds a private key/,
    );
    const { d: _d, ...publicJwk } = jwk;
    expect(() => retiredKeysFrom(JSON.stringify([publicJwk]))).toThrow(/no valid notAfter/);
    expect(
      retiredKeysFrom(JSON.stringify({ keys: [{ ...publicJwk, notAfter: '2027-01-01T00:00:00Z' }] })),
    ).toEqual([
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: jwk.x,
        kid: jwk.kid,
        alg: 'EdDSA',
        use: 'sig',
        notAfter: '2027-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('a retired key is listed until its notAfter, after the current key, never twice', async () => {
    const current = await signingKeyFrom(JSON.stringify(await generatePrivateJwk()));
    const old = await signingKeyFrom(JSON.stringify(await generatePrivateJwk()));
    const ring = {
      current,
      retired: [
        retire(old, new Date('2027-01-01T00:00:00Z')),
        retire(current, new Date('2027-06-01T00:00:00Z')),
      ],
    };
    expect(jwksOf(ring, new Date('2026-12-31T23:59:59Z')).keys.map((k) => k.kid)).toEqual([
      current.kid,
      old.kid,
    ]);
    expect(jwksOf(ring, new Date('2027-01-01T00:00:00Z')).keys.map((k) => k.kid)).toEqual([current.kid]);
    expect(jwksOf(ring, new Date()).keys[0]).not.toHaveProperty('notAfter');
  });
});

describe('StatusListPublisher', () => {
  async function publisher(cacheMs: number) {
    const key = await signingKeyFrom(JSON.stringify(await generatePrivateJwk()));
    const reads: Date[] = [];
    const ctx = {
      db: {} as never,
      clock: { now: () => new Date('2026-11-22T10:00:00.000Z') },
      signer: { issuer: 'https://api.example.com', key: () => key },
      credentials: {
        invalidIndexes: async (_q: unknown, _listId: number, now: Date) => {
          reads.push(now);
          return [3];
        },
      } as never,
    };
    return { lists: new StatusListPublisher(ctx, cacheMs), reads };
  }

  it('when asked at once by many, then the licenses are read once; an unknown list is null', async () => {
    const { lists, reads } = await publisher(5000);
    const answers = await Promise.all([lists.jwt(1), lists.jwt(1), lists.jwt(1)]);
    expect(new Set(answers).size).toBe(1);
    expect(await lists.jwt(1)).toBe(answers[0]);
    expect(reads).toHaveLength(1);
    expect(await lists.jwt(2)).toBeNull();
  });

  it('when the cache is off, then every read builds the list again', async () => {
    const { lists, reads } = await publisher(0);
    await lists.jwt(1);
    await lists.jwt(1);
    expect(reads).toHaveLength(2);
  });
});
