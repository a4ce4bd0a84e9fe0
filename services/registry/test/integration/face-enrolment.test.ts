import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { referenceImageEnrolled } from '@svc/contracts/detection';
import { startRegistryHarness, type Client, type RegistryHarness } from '../fixtures/registry-harness';

// docs/spec/contracts.md §15: a claim's reference images show detection's face enrolment, and
// deleting a claim or an image, or rejecting a claim, has detection forget the faces before the
// registry answers.

interface ForgetCall {
  claimId: string;
  imageIds?: string[];
}

async function startDetectionStub(): Promise<{ url: string; calls: ForgetCall[]; close(): Promise<void> }> {
  const calls: ForgetCall[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/internal/face-enrolments/forget') calls.push(JSON.parse(body) as ForgetCall);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"forgotten":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let h: RegistryHarness;
let owner: Client;
let detection: Awaited<ReturnType<typeof startDetectionStub>>;

beforeAll(async () => {
  detection = await startDetectionStub();
  h = await startRegistryHarness({ DETECTION_URL: detection.url });
  owner = h.platform();
});

afterAll(async () => {
  await h.stop();
  await detection.close();
});

type Image = { id: string; url: string; isPrimary: boolean; face: { status: string } };

const imagesOf = async (claimId: string): Promise<Image[]> =>
  (await owner.call('GET', `/v1/svc/claims/${claimId}`)).body.data.referenceImages as Image[];

const enrolled = (claimId: string, image: { id: string; url: string }, faceStatus: 'enrolled' | 'no_face') =>
  referenceImageEnrolled.create(
    {
      claimId,
      imageId: image.id,
      url: image.url,
      faceStatus,
      fingerprinted: true,
      enrolledAt: h.clock.now().toISOString(),
    },
    { occurredAt: h.clock.now(), platformId: owner.platformId },
  );

describe('face status of reference images', () => {
  it('when detection has not examined a picture yet, then its face is pending', async () => {
    const claim = await h.verifiedClaim(owner);
    expect((await imagesOf(claim.id)).map((image) => image.face)).toEqual([
      { status: 'pending' },
      { status: 'pending' },
    ]);
  });

  it('when detection announces an enrolment, then that picture shows it and the others stay pending', async () => {
    const claim = await h.verifiedClaim(owner);
    const [first, second] = await imagesOf(claim.id);
    if (!first || !second) throw new Error('two images expected');
    await h.publish(enrolled(claim.id, first, 'enrolled'));
    await h.publish(enrolled(claim.id, second, 'no_face'));
    expect((await imagesOf(claim.id)).map((image) => [image.id, image.face.status])).toEqual([
      [first.id, 'enrolled'],
      [second.id, 'no_face'],
    ]);
  });

  it('when an announcement names an url the image no longer has, then it changes nothing', async () => {
    const claim = await h.verifiedClaim(owner);
    const [first] = await imagesOf(claim.id);
    if (!first) throw new Error('an image expected');
    await h.publish(enrolled(claim.id, { id: first.id, url: 'https://img.example.com/old.jpg' }, 'enrolled'));
    expect((await imagesOf(claim.id))[0]?.face).toEqual({ status: 'pending' });
  });

  it('when the owner edits the variations, then the pictures keep their face status', async () => {
    const claim = await h.verifiedClaim(owner);
    const [first] = await imagesOf(claim.id);
    if (!first) throw new Error('an image expected');
    await h.publish(enrolled(claim.id, first, 'enrolled'));
    const patched = await owner.call('PATCH', `/v1/svc/claims/${claim.id}`, { variations: ['Ada'] });
    expect(patched.status).toBe(200);
    expect((await imagesOf(claim.id))[0]?.face).toEqual({ status: 'enrolled' });
  });
});

describe('faces forgotten before the answer', () => {
  it('when the owner deletes a claim, then detection was told to forget its faces before the response', async () => {
    const claim = await h.verifiedClaim(owner);
    const deleted = await owner.call('DELETE', `/v1/svc/claims/${claim.id}`);
    expect(deleted.status).toBe(200);
    expect(detection.calls).toContainEqual({ claimId: claim.id });
  });

  it('when the owner replaces the pictures, then the removed ones are forgotten before the response', async () => {
    const claim = await h.verifiedClaim(owner);
    const [first, second] = await imagesOf(claim.id);
    if (!first || !second) throw new Error('two images expected');
    const patched = await owner.call('PATCH', `/v1/svc/claims/${claim.id}`, {
      referenceImages: [{ url: first.url, isPrimary: true }, { url: 'https://img.example.com/new.jpg' }],
    });
    expect(patched.status).toBe(200);
    expect(detection.calls).toContainEqual({ claimId: claim.id, imageIds: [second.id] });
  });

  it('when the operator rejects a claim, then its faces are forgotten before the response', async () => {
    const created = await owner.call('POST', '/v1/svc/claims', {
      name: 'Someone Rejected',
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/r.jpg' }],
    });
    const rejected = await h
      .operator()
      .call('POST', `/admin/claims/${created.body.data.id}/reject`, { reason: 'not the person' });
    expect(rejected.status).toBe(200);
    expect(detection.calls).toContainEqual({ claimId: created.body.data.id });
  });
});

describe('when detection cannot be reached', () => {
  let alone: RegistryHarness;
  beforeAll(async () => {
    alone = await startRegistryHarness();
  });
  afterAll(async () => {
    await alone.stop();
  });

  it('then a deletion still succeeds (the event removes the faces once detection is back)', async () => {
    const client = alone.platform();
    const claim = await alone.verifiedClaim(client);
    const deleted = await client.call('DELETE', `/v1/svc/claims/${claim.id}`);
    expect(deleted.status).toBe(200);
    expect((await client.call('GET', `/v1/svc/claims/${claim.id}`)).status).toBe(404);
  });
});
