import { StatusList } from '@sd-jwt/jwt-status-list';
import {
  checkLicenseCredential,
  createKeyCache,
  CredentialVerificationError,
  verifyLicenseCredential,
  verifyStatusList,
  type CredentialFailureReason,
} from '../../src';
import {
  ISSUER,
  LIST_URI,
  NOW,
  jwksOf,
  licenseClaims,
  nowSeconds,
  signCredential,
  signStatusList,
  signingKey,
  type SigningKey,
} from '../fixtures/credential-issuer';

// Contracts §16: a third party checks a license credential with nothing but the issuer's
// published keys and status list.

let current: SigningKey;
let retired: SigningKey;
let stranger: SigningKey;

beforeAll(async () => {
  [current, retired, stranger] = await Promise.all([
    signingKey('k2'),
    signingKey('k1'),
    signingKey('k-other'),
  ]);
});

/** `jws` with the character at `at` (from the end when negative) replaced by another. */
function changedAt(jws: string, at: number): string {
  const i = at < 0 ? jws.length + at : at;
  return `${jws.slice(0, i)}${jws[i] === 'A' ? 'B' : 'A'}${jws.slice(i + 1)}`;
}

async function refusal(check: Promise<unknown>): Promise<CredentialFailureReason> {
  try {
    await check;
  } catch (err) {
    if (err instanceof CredentialVerificationError) return err.reason;
    throw err;
  }
  throw new Error('the check passed');
}

describe('verifyLicenseCredential', () => {
  it('when a credential is checked with the published key set alone, then it gives the license and what was checked', async () => {
    const credential = await signCredential(current, licenseClaims(7));

    const verified = await verifyLicenseCredential(credential, { keys: jwksOf(current, retired), now: NOW });

    expect(verified.license).toEqual({
      id: 'lic_7',
      boxId: 'box_ada',
      claimId: 'clm_ada',
      identityName: 'Ada Lovelace',
      platformId: 'plt_avatarly',
      tier: 'creator',
      allowedUses: ['avatar', 'chat'],
      validFrom: new Date((nowSeconds - 3600) * 1000),
      expiresAt: new Date((nowSeconds + 30 * 86400) * 1000),
    });
    expect(verified.keyId).toBe('k2');
    expect(verified.issuer).toBe(ISSUER);
    expect(verified.status).toEqual({ idx: 7, uri: LIST_URI });
    expect(verified.checked).toEqual([
      'signature by key k2',
      `issuer ${ISSUER} (as named; none was expected)`,
      'valid until 2026-12-29T08:00:00.000Z',
    ]);
  });

  it('when a credential was signed by a retired key the set still lists, then it verifies', async () => {
    const credential = await signCredential(retired, licenseClaims(8));

    const verified = await verifyLicenseCredential(credential, { keys: jwksOf(current, retired), now: NOW });

    expect(verified.keyId).toBe('k1');
    expect(verified.checked[0]).toBe('signature by key k1');
  });

  it('when the credential carries only the IETF form status.status_list, then it is read too', async () => {
    const credential = await signCredential(
      current,
      licenseClaims(9, { status: { status_list: { idx: 9, uri: LIST_URI } } }),
    );
    const statusList = await signStatusList(current, { revoked: [9] });

    expect(
      await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), statusList, now: NOW })),
    ).toBe('revoked');
  });

  it('when one character anywhere in the JWS is changed, then the credential is refused', async () => {
    const credential = await signCredential(current, licenseClaims(3));
    const keys = jwksOf(current);
    const reasons = new Set<CredentialFailureReason>();
    for (let i = 0; i < credential.length; i += 1) {
      reasons.add(await refusal(verifyLicenseCredential(changedAt(credential, i), { keys, now: NOW })));
    }
    // Most changes break the signature; some break the structure first (a '.' replaced, bad JSON).
    expect(reasons.has('bad_signature')).toBe(true);
    expect(
      [...reasons].every((reason) =>
        ['bad_signature', 'malformed', 'unknown_key', 'wrong_type'].includes(reason),
      ),
    ).toBe(true);
  });

  it("when the signature's last character is spelled differently but decodes to the same bytes, then it is refused", async () => {
    const credential = await signCredential(current, licenseClaims(3));
    // 64 bytes take 86 base64url characters; the last one's two low bits are padding.
    const last = credential.at(-1) ?? '';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = alphabet[alphabet.indexOf(last) ^ 1] ?? '';

    expect(
      await refusal(
        verifyLicenseCredential(credential.slice(0, -1) + sameBytes, { keys: jwksOf(current), now: NOW }),
      ),
    ).toBe('bad_signature');
  });

  it('when the payload of one credential is joined to the signature of another, then it is refused as bad_signature', async () => {
    const [a, b] = await Promise.all([
      signCredential(current, licenseClaims(1)),
      signCredential(current, licenseClaims(2)),
    ]);
    const [header, payload] = a.split('.');
    const forged = `${header}.${payload}.${b.split('.')[2]}`;

    expect(await refusal(verifyLicenseCredential(forged, { keys: jwksOf(current), now: NOW }))).toBe(
      'bad_signature',
    );
  });

  it('when the credential is signed by a key the set does not list, then it is refused as unknown_key', async () => {
    const credential = await signCredential(stranger, licenseClaims(1));

    expect(
      await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current, retired), now: NOW })),
    ).toBe('unknown_key');
  });

  it("when a stranger's key claims a listed kid, then the signature is refused", async () => {
    const impostor = { ...stranger, kid: 'k2' };
    const credential = await signCredential(impostor, licenseClaims(1));

    expect(await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), now: NOW }))).toBe(
      'bad_signature',
    );
  });

  it.each([
    ['not three parts', () => Promise.resolve('abc.def')],
    [
      'a header that is not JSON',
      async () =>
        `bm90IGpzb24.${(await signCredential(current, licenseClaims(1))).split('.').slice(1).join('.')}`,
    ],
    [
      'claims without allowedUses',
      () => signCredential(current, licenseClaims(1, { allowedUses: undefined })),
    ],
    ['a sub that is not a license id', () => signCredential(current, licenseClaims(1, { sub: 'box_1' }))],
    ['no status reference', () => signCredential(current, licenseClaims(1, { status: undefined }))],
    [
      'two status references that disagree',
      () =>
        signCredential(
          current,
          licenseClaims(1, { status: { idx: 1, uri: LIST_URI, status_list: { idx: 2, uri: LIST_URI } } }),
        ),
    ],
  ])('when the credential has %s, then it is refused as malformed', async (_, make) => {
    expect(await refusal(verifyLicenseCredential(await make(), { keys: jwksOf(current), now: NOW }))).toBe(
      'malformed',
    );
  });

  it('when a signed JWT of another type is offered as a credential, then it is refused as wrong_type', async () => {
    const plainJwt = await signCredential(current, licenseClaims(1), { typ: 'JWT' });
    const statusList = await signStatusList(current);

    expect(await refusal(verifyLicenseCredential(plainJwt, { keys: jwksOf(current), now: NOW }))).toBe(
      'wrong_type',
    );
    expect(await refusal(verifyLicenseCredential(statusList, { keys: jwksOf(current), now: NOW }))).toBe(
      'wrong_type',
    );
  });

  it('when the credential names another issuer than the one expected, then it is refused as wrong_issuer', async () => {
    const credential = await signCredential(current, licenseClaims(1, { iss: 'https://elsewhere.example' }));

    expect(
      await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), issuer: ISSUER, now: NOW })),
    ).toBe('wrong_issuer');
    const ours = await signCredential(current, licenseClaims(1));
    await expect(
      verifyLicenseCredential(ours, { keys: jwksOf(current), issuer: `${ISSUER}/`, now: NOW }),
    ).resolves.toMatchObject({
      issuer: ISSUER,
      checked: expect.arrayContaining([`issuer ${ISSUER}`]),
    });
  });

  it('when the license period has not begun, then it is refused as not_yet_valid unless within the clock tolerance', async () => {
    const credential = await signCredential(current, licenseClaims(1, { nbf: nowSeconds + 30 }));
    const keys = jwksOf(current);

    expect(await refusal(verifyLicenseCredential(credential, { keys, now: NOW }))).toBe('not_yet_valid');
    await expect(
      verifyLicenseCredential(credential, { keys, now: NOW, clockToleranceSeconds: 60 }),
    ).resolves.toBeDefined();
  });

  it('when a credential verified before is checked after its key left the set, then it is refused as unknown_key', async () => {
    const credential = await signCredential(retired, licenseClaims(11));
    await verifyLicenseCredential(credential, { keys: jwksOf(current, retired), now: NOW });

    expect(await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), now: NOW }))).toBe(
      'unknown_key',
    );
    const otherKeySameKid = { ...stranger.jwk, kid: 'k1' };
    expect(
      await refusal(
        verifyLicenseCredential(credential, { keys: { keys: [current.jwk, otherKeySameKid] }, now: NOW }),
      ),
    ).toBe('bad_signature');
  });

  it('when a credential verified before is checked again after its period, then it is refused as expired', async () => {
    const credential = await signCredential(current, licenseClaims(12));
    const verified = await verifyLicenseCredential(credential, { keys: jwksOf(current), now: NOW });
    verified.license.allowedUses.push('everything');

    expect(
      await refusal(
        verifyLicenseCredential(credential, { keys: jwksOf(current), now: new Date('2027-01-01T00:00:00Z') }),
      ),
    ).toBe('expired');
    expect(
      (await verifyLicenseCredential(credential, { keys: jwksOf(current), now: NOW })).license.allowedUses,
    ).toEqual(['avatar', 'chat']);
  });

  it('when the license period is over, then it is refused as expired', async () => {
    const credential = await signCredential(current, licenseClaims(1, { exp: nowSeconds }));

    expect(await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), now: NOW }))).toBe(
      'expired',
    );
    await expect(
      verifyLicenseCredential(credential, { keys: jwksOf(current), now: new Date(NOW.getTime() - 1000) }),
    ).resolves.toBeDefined();
  });
});

describe('verifyLicenseCredential with a status list', () => {
  it('when the list marks index N, then the credential at N is refused as revoked and the one at N+1 passes', async () => {
    const keys = jwksOf(current);
    const statusList = await signStatusList(current, { revoked: [41] });
    const [atN, atNext] = await Promise.all([
      signCredential(current, licenseClaims(41)),
      signCredential(current, licenseClaims(42)),
    ]);

    expect(await refusal(verifyLicenseCredential(atN, { keys, statusList, now: NOW }))).toBe('revoked');
    const passed = await verifyLicenseCredential(atNext, { keys, statusList, now: NOW });
    expect(passed.checked).toContain(`not revoked in status list ${LIST_URI} at 2026-11-29T07:59:30.000Z`);
  });

  it.each([
    ['signed by a key the set does not list', () => signStatusList(stranger)],
    ['of another type', () => signStatusList(current, { typ: 'JWT' })],
    ['expired', () => signStatusList(current, { exp: nowSeconds - 1 })],
    [
      'for another uri than the credential names',
      () => signStatusList(current, { uri: `${ISSUER}/v1/svc/status-lists/2` }),
    ],
    ['shorter than the credential index', () => signStatusList(current, { size: 8 })],
    ['with a changed signature', async () => changedAt(await signStatusList(current), -20)],
  ])('when the list is %s, then the credential is refused as status_list_invalid', async (_, makeList) => {
    const credential = await signCredential(current, licenseClaims(20));
    const statusList = await makeList();

    expect(
      await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), statusList, now: NOW })),
    ).toBe('status_list_invalid');
  });

  it('when the same list is checked under a key set without its key, then it is refused though it passed before', async () => {
    const credential = await signCredential(current, licenseClaims(5));
    const statusList = await signStatusList(retired);
    await verifyLicenseCredential(credential, { keys: jwksOf(current, retired), statusList, now: NOW });

    expect(
      await refusal(verifyLicenseCredential(credential, { keys: jwksOf(current), statusList, now: NOW })),
    ).toBe('status_list_invalid');
  });
});

describe('verifyStatusList', () => {
  it('when a list is checked, then it gives its uri, dates and each index status', async () => {
    const list = await verifyStatusList(await signStatusList(current, { revoked: [0, 9] }), {
      keys: jwksOf(current),
      now: NOW,
    });

    expect(list.uri).toBe(LIST_URI);
    expect(list.issuedAt).toEqual(new Date((nowSeconds - 30) * 1000));
    expect(list.expiresAt).toEqual(new Date((nowSeconds + 3600) * 1000));
    expect([0, 1, 8, 9, 10].map((idx) => list.statusOf(idx))).toEqual([1, 0, 0, 1, 0]);
    expect(() => list.statusOf(1024)).toThrow(CredentialVerificationError);
  });

  it('when the list is expired at the time given, then it is refused as status_list_invalid', async () => {
    const jwt = await signStatusList(current);

    expect(
      await refusal(
        verifyStatusList(jwt, { keys: jwksOf(current), now: new Date((nowSeconds + 3600) * 1000) }),
      ),
    ).toBe('status_list_invalid');
  });
});

describe('status lists re-signed', () => {
  it('when a list is re-signed with the same bits, then it is not decompressed again; with new bits, it is', async () => {
    const decompress = jest.spyOn(StatusList, 'decompressStatusList');
    try {
      const keys = jwksOf(current);
      const first = await signStatusList(current, { revoked: [100], iat: nowSeconds - 20 });
      const resigned = await signStatusList(current, { revoked: [100], iat: nowSeconds - 10 });
      const changed = await signStatusList(current, { revoked: [100, 101], iat: nowSeconds - 5 });

      expect((await verifyStatusList(first, { keys, now: NOW })).statusOf(101)).toBe(0);
      expect((await verifyStatusList(resigned, { keys, now: NOW })).statusOf(101)).toBe(0);
      expect(decompress).toHaveBeenCalledTimes(1);
      expect((await verifyStatusList(changed, { keys, now: NOW })).statusOf(101)).toBe(1);
      expect(decompress).toHaveBeenCalledTimes(2);
    } finally {
      decompress.mockRestore();
    }
  });
});

describe('createKeyCache and checkLicenseCredential', () => {
  function issuerServer(state: { keys: SigningKey[]; list: string; cacheControl?: string }) {
    const calls: string[] = [];
    const fetchFn = (async (input: string | URL | Request) => {
      const url = String(input);
      calls.push(url);
      const headers = { 'cache-control': state.cacheControl ?? 'public, max-age=300' };
      if (url === `${ISSUER}/.well-known/jwks.json`)
        return new Response(JSON.stringify(jwksOf(...state.keys)), { headers });
      if (url === LIST_URI) return new Response(state.list, { headers });
      return new Response('{}', { status: 404 });
    }) as typeof fetch;
    return { calls, fetchFn };
  }

  it('when many credentials are checked, then the key set and the status list are fetched once', async () => {
    const server = issuerServer({ keys: [current], list: await signStatusList(current, { revoked: [3] }) });
    const cache = createKeyCache(`${ISSUER}/`, { fetch: server.fetchFn });
    const credentials = await Promise.all(
      [1, 2, 4, 5].map((idx) => signCredential(current, licenseClaims(idx))),
    );

    for (const credential of credentials) await checkLicenseCredential(credential, cache, { now: NOW });
    expect(
      await refusal(
        checkLicenseCredential(await signCredential(current, licenseClaims(3)), cache, { now: NOW }),
      ),
    ).toBe('revoked');

    expect(server.calls.sort()).toEqual([`${ISSUER}/.well-known/jwks.json`, LIST_URI].sort());
  });

  it("when the list's max-age has passed, then it is fetched again and a new revocation shows", async () => {
    let clock = NOW.getTime();
    const state = { keys: [current], list: await signStatusList(current), cacheControl: 'max-age=60' };
    const server = issuerServer(state);
    const cache = createKeyCache(ISSUER, { fetch: server.fetchFn, now: () => clock });
    const credential = await signCredential(current, licenseClaims(6));
    await checkLicenseCredential(credential, cache, { now: NOW });

    state.list = await signStatusList(current, { revoked: [6] });
    clock += 30_000;
    await expect(checkLicenseCredential(credential, cache, { now: NOW })).resolves.toBeDefined();
    clock += 31_000;
    expect(await refusal(checkLicenseCredential(credential, cache, { now: NOW }))).toBe('revoked');
  });

  it('when a credential names a key newer than the cached set, then the set is fetched again and it verifies', async () => {
    let clock = NOW.getTime();
    const state = { keys: [retired], list: await signStatusList(retired) };
    const server = issuerServer(state);
    const cache = createKeyCache(ISSUER, { fetch: server.fetchFn, now: () => clock });
    await checkLicenseCredential(await signCredential(retired, licenseClaims(1)), cache, { now: NOW });

    state.keys = [current, retired];
    clock += 31_000;
    const verified = await checkLicenseCredential(await signCredential(current, licenseClaims(2)), cache, {
      now: NOW,
    });

    expect(verified.keyId).toBe('k2');
    expect(server.calls.filter((url) => url.endsWith('jwks.json'))).toHaveLength(2);
  });

  it('when credentials name unknown keys again and again, then the key set is fetched at most once in 30 s', async () => {
    let clock = NOW.getTime();
    const server = issuerServer({ keys: [current], list: await signStatusList(current) });
    const cache = createKeyCache(ISSUER, { fetch: server.fetchFn, now: () => clock });
    const strange = await signCredential(stranger, licenseClaims(1));

    for (let i = 0; i < 5; i += 1) {
      expect(await refusal(checkLicenseCredential(strange, cache, { now: NOW }))).toBe('unknown_key');
      clock += 5_000;
    }
    clock += 10_000;
    expect(await refusal(checkLicenseCredential(strange, cache, { now: NOW }))).toBe('unknown_key');

    expect(server.calls.filter((url) => url.endsWith('jwks.json'))).toHaveLength(2);
    expect(server.calls).not.toContain(LIST_URI);
  });

  it('when the credential comes from another issuer than the cache, then it is refused as wrong_issuer', async () => {
    const server = issuerServer({ keys: [current], list: await signStatusList(current) });
    const cache = createKeyCache(ISSUER, { fetch: server.fetchFn });
    const credential = await signCredential(current, licenseClaims(1, { iss: 'https://elsewhere.example' }));

    expect(await refusal(checkLicenseCredential(credential, cache, { now: NOW }))).toBe('wrong_issuer');
  });

  it('when the key set cannot be fetched, then the check fails without keeping the failure', async () => {
    let up = false;
    const server = issuerServer({ keys: [current], list: await signStatusList(current) });
    const flaky = ((input: string | URL | Request) =>
      up ? server.fetchFn(input) : Promise.resolve(new Response('', { status: 503 }))) as typeof fetch;
    const cache = createKeyCache(ISSUER, { fetch: flaky });

    await expect(cache.keys()).rejects.toThrow('answered 503');
    up = true;
    await expect(cache.keys()).resolves.toEqual(jwksOf(current));
  });
});

describe('in a browser (no node:crypto)', () => {
  it('when checked through jose, then the answers are the same', async () => {
    const spy = jest.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    try {
      let browser!: typeof import('../../src/credentials');
      jest.isolateModules(() => {
        browser = jest.requireActual<typeof import('../../src/credentials')>('../../src/credentials');
      });
      const keys = jwksOf(current, retired);
      const statusList = await signStatusList(current, { revoked: [2] });
      const good = await signCredential(retired, licenseClaims(1));
      const revoked = await signCredential(current, licenseClaims(2));
      const tampered = changedAt(good, -10); // in the signature
      const changedClaims = await signCredential(retired, licenseClaims(1, { tier: 'enterprise' }));
      const spliced = [...good.split('.').slice(0, 1), changedClaims.split('.')[1], good.split('.')[2]].join(
        '.',
      );
      const reasonOf = (check: Promise<unknown>) =>
        check.then(
          () => 'passed',
          (err: { reason?: string }) => err.reason,
        );

      expect((await browser.verifyLicenseCredential(good, { keys, statusList, now: NOW })).keyId).toBe('k1');
      expect(await reasonOf(browser.verifyLicenseCredential(revoked, { keys, statusList, now: NOW }))).toBe(
        'revoked',
      );
      expect(await reasonOf(browser.verifyLicenseCredential(tampered, { keys, now: NOW }))).toBe(
        'bad_signature',
      );
      expect(await reasonOf(browser.verifyLicenseCredential(spliced, { keys, now: NOW }))).toBe(
        'bad_signature',
      );
      expect(await reasonOf(browser.verifyLicenseCredential(good, { keys: jwksOf(current), now: NOW }))).toBe(
        'unknown_key',
      );
      expect(spy).toHaveBeenCalledWith('node:crypto');
    } finally {
      spy.mockRestore();
    }
  });
});
