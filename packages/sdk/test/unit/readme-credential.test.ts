import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CredentialVerificationError } from '../../src';
import { checkAsTheReadmeDoes } from '../readme-credential-example';
import {
  jwksOf,
  licenseClaims,
  signCredential,
  signStatusList,
  signingKey,
} from '../fixtures/credential-issuer';

// README.md's "Check a license credential" example is the one in test/readme-credential-example.ts,
// and it does what the README says against an issuer that serves its key set and status list.
describe("the SDK README's credential example", () => {
  const root = path.resolve(__dirname, '../..');

  it('when README.md is read, then its example is the type-checked one', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const block = /## Check a license credential[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const example = readFileSync(path.join(root, 'test/readme-credential-example.ts'), 'utf8');
    const [head = '', body = ''] = example.split('  // --- README ---\n');
    const lines = block.replace(/\n$/, '').split('\n');

    const imports = lines.filter((line) => line.startsWith('import '));
    expect(imports).toHaveLength(1);
    for (const line of imports) expect(head).toContain(line.replace("'@svc/sdk'", "'../src'"));
    const code = lines.filter((line) => !line.startsWith('import ') && line !== '');
    const indented = body.replace(/\n$/, '').split('\n');
    expect(indented.map((line) => line.replace(/^ {2}/, ''))).toEqual(code);
  });

  it('when run against an issuer, then it prints a good license and throws the reason for a revoked one', async () => {
    const issuer = 'https://api.example.com';
    const uri = `${issuer}/v1/svc/status-lists/1`;
    const key = await signingKey('k1');
    // The README's check runs on the real clock: the list is signed now (the fixtures' fixed "now"
    // would make it expired once that day's clock passes it).
    const signedAt = Math.floor(Date.now() / 1000);
    const onTheWire = new Map([
      [`${issuer}/.well-known/jwks.json`, JSON.stringify(jwksOf(key))],
      [uri, await signStatusList(key, { uri, revoked: [2], iat: signedAt - 30, exp: signedAt + 600 })],
    ]);
    const fetchSpy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
      const body = onTheWire.get(String(input));
      return new Response(body ?? 'not found', { status: body === undefined ? 404 : 200 });
    });
    const logSpy = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const now = Math.floor(Date.now() / 1000);
      const period = { iss: issuer, iat: now - 60, nbf: now - 60, exp: now + 86400 };
      const good = await signCredential(key, licenseClaims(1, { ...period, status: { idx: 1, uri } }));
      const revoked = await signCredential(key, licenseClaims(2, { ...period, status: { idx: 2, uri } }));

      await checkAsTheReadmeDoes(good);
      expect(logSpy).toHaveBeenCalledWith(
        'Ada Lovelace',
        ['avatar', 'chat'],
        new Date((now + 86400) * 1000).toISOString(),
        expect.arrayContaining([`issuer ${issuer}`, expect.stringMatching(/^not revoked in status list /)]),
      );
      const refusal = await checkAsTheReadmeDoes(revoked).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(CredentialVerificationError);
      expect((refusal as CredentialVerificationError).reason).toBe('revoked');
    } finally {
      fetchSpy.mockRestore();
      logSpy.mockRestore();
    }
  });
});
