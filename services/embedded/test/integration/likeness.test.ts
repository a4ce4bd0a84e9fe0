import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { waitFor } from '@svc/test-kit';
import { embeddedConfigSchema, startEmbedded, type RunningEmbedded } from '../../src';

// docs/spec/contracts.md §15 on the embedded default (PGlite, the in-process bus): a face enrolled
// from a reference picture matches the same person in another picture under another name, and
// deleting the claim forgets it before the answer: the very next check does not match it.
const FACES = path.resolve(__dirname, '../../../../packages/face-engine/test/fixtures/faces');

describe('embedded default: likeness', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-likeness-'));
  let running: RunningEmbedded;
  let images: Server;
  let imageBase = '';

  beforeAll(async () => {
    const files = new Map<string, Buffer>([
      ['/portrait.jpg', await readFile(path.join(FACES, 'wh-obama-official-portrait-2012.jpg'))],
      ['/other-picture.jpg', await readFile(path.join(FACES, 'wh-obama-biden-oval-office.jpg'))],
    ]);
    images = createServer((req, res) => {
      const body = files.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(body);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    process.env.LOG_LEVEL = 'error';
    const config = loadConfig(embeddedConfigSchema, {
      PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'adm_likeness_0123456789abcdef',
      LOG_LEVEL: 'silent',
    });
    running = await startEmbedded(config, createLogger('embedded', { level: 'silent' }));
  }, 300_000);

  afterAll(async () => {
    await running?.stop();
    images?.closeAllConnections();
    await new Promise<void>((resolve) => (images ? images.close(() => resolve()) : resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(running.url + route, {
      method,
      headers: { authorization: `Bearer ${running.sandboxKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('when a protected face is in another picture, then it matches by face, and not once the claim is deleted', async () => {
    const created = await call('POST', '/v1/svc/claims', {
      name: 'Embedded Likeness',
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: `${imageBase}/portrait.jpg`, isPrimary: true }],
    });
    expect(created.status).toBe(201);
    const claimId = created.body.data.id as string;
    expect((await call('POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {})).status).toBe(200);
    expect((await call('POST', '/v1/svc/boxes', { claimId, policy: 'BLOCK_ALL' })).status).toBe(201);
    await waitFor(
      async () => {
        const claim = await call('GET', `/v1/svc/claims/${claimId}`);
        return claim.body.data.referenceImages[0].face.status === 'enrolled' ? true : undefined;
      },
      { what: 'the face enrolled', timeoutMs: 60_000 },
    );
    const check = () =>
      call('POST', '/v1/svc/identity/check', {
        name: 'Someone Else',
        imageUrl: `${imageBase}/other-picture.jpg`,
      });
    const matched = await waitFor(
      async () => {
        const res = await check();
        return res.body.isBoxed === true ? res : undefined;
      },
      { what: 'the face in the index', timeoutMs: 30_000 },
    );
    expect(matched.body).toMatchObject({
      action: 'BLOCK',
      matchedIdentity: { claimId },
      detection: { layer: 6, matchLayer: 'face', likeness: { band: 'match', faces: 2 } },
    });
    expect((await call('DELETE', `/v1/svc/claims/${claimId}`)).status).toBe(200);
    expect((await check()).body).toMatchObject({ isClaimed: false, action: 'ALLOW' });
  }, 180_000);
});
