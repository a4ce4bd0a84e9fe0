import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { loadConfig } from '@svc/config';
import { licensingConfigSchema, startLicensing } from '../../src';
import { generatePrivateJwk } from '../../src/domain/signing-keys';
import { rotateSigningKey } from '../../src/rotate-signing-key';
import { startLicensingHarness, type Client, type LicensingHarness } from '../fixtures/licensing-harness';

// Rotation as the runbook (docs/adr/0029) does it: the command, then a restart with the two files.
let dir: string;
let keyFile: string;
let retiredFile: string;
let h: LicensingHarness;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'licensing-keys-'));
  keyFile = path.join(dir, 'signing-key.json');
  retiredFile = path.join(dir, 'retired-keys.json');
  writeFileSync(keyFile, JSON.stringify(await generatePrivateJwk()), { mode: 0o600 });
  writeFileSync(retiredFile, '[]\n');
  h = await startLicensingHarness({
    env: { LICENSE_SIGNING_KEY_FILE: keyFile, LICENSE_RETIRED_KEYS_FILE: retiredFile },
  });
});
afterAll(async () => {
  await h.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function published() {
  return (await h.platform().call('GET', '/.well-known/jwks.json')).body as { keys: { kid: string }[] };
}

async function credentialOf(client: Client, licenseId: string): Promise<string> {
  const res = await client.call('GET', `/v1/svc/licenses/${licenseId}/credential`);
  expect(res.status).toBe(200);
  return res.body.data.credential;
}

describe('rotating the signing key', () => {
  it('when rotated and restarted, then the JWKS lists both keys, old and new credentials verify, and the old key leaves after notAfter', async () => {
    const client = h.platform();
    const first = await h.activeLicense(client);
    const oldCredential = await credentialOf(client, first.license.id);
    const oldKid = decodeProtectedHeader(oldCredential).kid;
    expect((await published()).keys.map((k) => k.kid)).toEqual([oldKid]);

    const rotation = await rotateSigningKey({ keyFile, retiredFile, keepDays: 40, now: h.clock.now() });
    expect(rotation.retiredKid).toBe(oldKid);
    expect(rotation.notAfter).toBe('2027-01-01T10:00:00.000Z');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(retiredFile, 'utf8')).not.toContain('"d"');
    await h.restart();

    const jwks = await published();
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotation.newKid, oldKid]);
    const second = await h.activeLicense(client);
    const newCredential = await credentialOf(client, second.license.id);
    expect(decodeProtectedHeader(newCredential).kid).toBe(rotation.newKid);
    const keys = createLocalJWKSet(jwks as never);
    await jwtVerify(oldCredential, keys, { currentDate: h.clock.now() });
    await jwtVerify(newCredential, keys, { currentDate: h.clock.now() });
    // Asked again, the first license's credential comes signed by the current key.
    expect(decodeProtectedHeader(await credentialOf(client, first.license.id)).kid).toBe(rotation.newKid);

    h.clock.set('2027-01-01T10:00:01.000Z');
    expect((await published()).keys.map((k) => k.kid)).toEqual([rotation.newKid]);
  });
});

describe('the signing key settings', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/never-opened', LOG_LEVEL: 'silent' };

  it('when production has no signing key, then licensing refuses to start and says which setting', async () => {
    const config = loadConfig(licensingConfigSchema, {
      ...base,
      SVC_ENVIRONMENT: 'production',
      INTERNAL_JWT_SECRET: 'a-production-secret-0123456789-abcdefgh',
    });
    await expect(startLicensing(config)).rejects.toThrow(
      /production needs a license signing key.*LICENSE_SIGNING_KEY_FILE/,
    );
  });

  it('when the key file holds an RSA key, then it is refused without quoting the key', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    }) as string;
    const file = path.join(dir, 'rsa.pem');
    writeFileSync(file, pem);
    const config = loadConfig(licensingConfigSchema, { ...base, LICENSE_SIGNING_KEY_FILE: file });
    const failure = startLicensing(config);
    await expect(failure).rejects.toThrow('the signing key must be Ed25519, not rsa');
    await expect(failure).rejects.not.toThrow(/PRIVATE KEY/);
  });
});
