import { startHarness, type Harness } from '../fixtures/gateway-harness';

// The README's walk-through claims an identity with a sample picture the sandbox gateway serves.
let sandbox: Harness;
let production: Harness;

beforeAll(async () => {
  sandbox = await startHarness({});
  production = await startHarness({ environment: 'production' });
});
afterAll(async () => {
  await production.stop();
  await sandbox.stop();
});

describe('sample pictures', () => {
  it('when a sandbox gateway is asked for a sample picture, then it serves the PNG without a key', async () => {
    for (const file of ['sample-portrait.png', 'sample-avatar.png']) {
      const res = await fetch(`${sandbox.url}/samples/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
    }
  });

  it('when another name is asked for, or a production gateway is asked, then it answers 404 NOT_FOUND', async () => {
    const unknown = await fetch(`${sandbox.url}/samples/..%2Fpackage.json`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const live = await fetch(`${production.url}/samples/sample-portrait.png`);
    expect(live.status).toBe(404);
  });
});
