import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '@svc/clock';
import { createLogger } from '@svc/logger';
import { generatePrivateJwk, retire, signingKeyFrom } from '../../src/domain/signing-keys';
import { assertSigningKeyConfig, loadKeyRing } from '../../src/signing-key-config';
import { rotateSigningKey } from '../../src/rotate-signing-key';

// The retired keys as k8s/ hands them over: a Secret's key read into LICENSE_RETIRED_KEYS (text),
// the same JSON the rotation command writes to LICENSE_RETIRED_KEYS_FILE.
const base = {
  SVC_ENVIRONMENT: 'production' as const,
  LICENSE_SIGNING_KEY_FILE: undefined,
  LICENSE_RETIRED_KEYS_FILE: undefined,
};
const noDb = { query: async () => ({ rows: [], rowCount: 0 }), exec: async () => undefined };

describe('signing key settings', () => {
  it('when the retired keys come as text, then the key ring publishes them beside the current key', async () => {
    const current = JSON.stringify(await generatePrivateJwk());
    const old = await signingKeyFrom(JSON.stringify(await generatePrivateJwk()));
    const retired = JSON.stringify([retire(old, new Date('2027-03-01T00:00:00.000Z'))]);
    const ring = await loadKeyRing(
      { ...base, LICENSE_SIGNING_KEY: current, LICENSE_RETIRED_KEYS: retired },
      noDb,
      new ManualClock(new Date('2026-11-29T00:00:00.000Z')),
      createLogger('test', { level: 'silent' }),
    );
    expect(ring.retired.map((k) => k.kid)).toEqual([old.kid]);
  });

  it('when the retired keys are set both as text and as a file, or the text holds a private key, then the service refuses to start', async () => {
    const current = JSON.stringify(await generatePrivateJwk());
    await expect(
      assertSigningKeyConfig({
        ...base,
        LICENSE_SIGNING_KEY: current,
        LICENSE_RETIRED_KEYS: '[]',
        LICENSE_RETIRED_KEYS_FILE: '/nonexistent/retired.json',
      }),
    ).rejects.toThrow('set LICENSE_RETIRED_KEYS or LICENSE_RETIRED_KEYS_FILE, not both');
    await expect(
      assertSigningKeyConfig({ ...base, LICENSE_SIGNING_KEY: current, LICENSE_RETIRED_KEYS: `[${current}]` }),
    ).rejects.toThrow();
  });

  it('when the rotation command runs where no key exists yet, then it writes a first key (mode 0600) and an empty retired list, and retires nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'first-key-'));
    try {
      const keyFile = path.join(dir, 'key.jwk');
      const retiredFile = path.join(dir, 'retired.json');
      const first = await rotateSigningKey({ keyFile, retiredFile });
      expect(first).toMatchObject({ retiredKid: null, notAfter: null });
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(retiredFile, 'utf8'))).toEqual([]);
      expect((await signingKeyFrom(readFileSync(keyFile, 'utf8'))).kid).toBe(first.newKid);
      const second = await rotateSigningKey({ keyFile, retiredFile });
      expect(second.retiredKid).toBe(first.newKid);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
