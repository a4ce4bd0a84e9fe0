import {
  claimBody,
  startRegistryHarness,
  type Client,
  type RegistryHarness,
} from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
});
afterAll(async () => {
  await h.stop();
});

async function newClaim(): Promise<any> {
  return (await owner.call('POST', '/v1/svc/claims', claimBody())).body.data;
}

describe('PATCH /v1/svc/claims/:id', () => {
  it('when the owner replaces variations and images, then the updated claim is returned and registry.claim.updated published', async () => {
    const claim = await newClaim();
    const kept = claim.referenceImages[1];
    const res = await owner.call('PATCH', `/v1/svc/claims/${claim.id}`, {
      variations: ['Augusta Ada King', 'augusta ada king'],
      referenceImages: [{ url: kept.url }, { url: 'https://img.example.com/new.jpg', isPrimary: true }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.variations).toEqual(['Augusta Ada King']);
    expect(res.body.data.referenceImages).toEqual([
      { id: kept.id, url: kept.url, isPrimary: false, face: { status: 'pending' } },
      {
        id: expect.stringMatching(/^img_/),
        url: 'https://img.example.com/new.jpg',
        isPrimary: true,
        face: { status: 'pending' },
      },
    ]);
    const event = await h.waitForEvent('registry.claim.updated', (e) => e.data.claimId === claim.id);
    expect(event.data.variations).toEqual(['Augusta Ada King']);
  });

  it('when the body changes nothing or is empty, then 400 VALIDATION_ERROR for an empty body', async () => {
    const claim = await newClaim();
    const res = await owner.call('PATCH', `/v1/svc/claims/${claim.id}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const bad = await owner.call('PATCH', `/v1/svc/claims/${claim.id}`, { variations: [''] });
    expect(bad.body.error.code).toBe('INVALID_NAME');
  });

  it('when another platform patches a verified claim, then 403 FORBIDDEN; a pending one, then 404', async () => {
    const verified = await h.verifiedClaim(owner);
    const pending = await newClaim();
    const intruder = h.platform();
    const forbidden = await intruder.call('PATCH', `/v1/svc/claims/${verified.id}`, { variations: ['x'] });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const hidden = await intruder.call('PATCH', `/v1/svc/claims/${pending.id}`, { variations: ['x'] });
    expect(hidden.status).toBe(404);
  });
});

describe('POST /v1/svc/claims/:id/variations', () => {
  it('when a new variation is added, then it is appended; an existing one in another case changes nothing', async () => {
    const claim = await newClaim();
    const added = await owner.call('POST', `/v1/svc/claims/${claim.id}/variations`, {
      variation: 'Ada King',
    });
    expect(added.status).toBe(200);
    expect(added.body.data.variations).toEqual(['Countess of Lovelace', 'A. Lovelace', 'Ada King']);
    const before = (await h.outbox()).length;
    const again = await owner.call('POST', `/v1/svc/claims/${claim.id}/variations`, {
      variation: 'ADA KING',
    });
    expect(again.status).toBe(200);
    expect(again.body.data.variations).toEqual(['Countess of Lovelace', 'A. Lovelace', 'Ada King']);
    expect((await h.outbox()).length).toBe(before);
  });

  it('when the variation is invalid, then 400 INVALID_NAME', async () => {
    const claim = await newClaim();
    const res = await owner.call('POST', `/v1/svc/claims/${claim.id}/variations`, { variation: '...' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_NAME');
  });
});

describe('POST /v1/svc/claims/:id/images', () => {
  it('when a primary image is added, then it demotes the old primary; a plain one is appended', async () => {
    const claim = await newClaim();
    const primary = await owner.call('POST', `/v1/svc/claims/${claim.id}/images`, {
      url: 'https://img.example.com/p.jpg',
      isPrimary: true,
    });
    expect(primary.status).toBe(200);
    const images = primary.body.data.referenceImages;
    expect(images).toHaveLength(3);
    expect(images.filter((i: { isPrimary: boolean }) => i.isPrimary)).toEqual([
      {
        id: expect.stringMatching(/^img_/),
        url: 'https://img.example.com/p.jpg',
        isPrimary: true,
        face: { status: 'pending' },
      },
    ]);
    const plain = await owner.call('POST', `/v1/svc/claims/${claim.id}/images`, {
      url: 'https://img.example.com/q.jpg',
    });
    expect(plain.body.data.referenceImages.find((i: { isPrimary: boolean }) => i.isPrimary).url).toBe(
      'https://img.example.com/p.jpg',
    );
  });

  it('when the url is not http(s), then 400 VALIDATION_ERROR naming url', async () => {
    const claim = await newClaim();
    const res = await owner.call('POST', `/v1/svc/claims/${claim.id}/images`, { url: 'javascript:alert(1)' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('url');
  });

  it('when the claim is boxed, then an image change also re-publishes the box', async () => {
    const claim = await h.verifiedClaim(owner);
    const box = (await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'BLOCK_ALL' })).body
      .data;
    await owner.call('POST', `/v1/svc/claims/${claim.id}/images`, {
      url: 'https://img.example.com/boxed.jpg',
    });
    const event = await h.waitForEvent(
      'registry.box.updated',
      (e) =>
        e.data.boxId === box.id &&
        (e.data.referenceImageUrls as string[]).includes('https://img.example.com/boxed.jpg'),
    );
    expect(event.data.policy).toBe('BLOCK_ALL');
  });
});
