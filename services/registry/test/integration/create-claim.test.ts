import {
  claimBody,
  startRegistryHarness,
  VERIFICATION_BASE_URL,
  type RegistryHarness,
} from '../fixtures/registry-harness';

let h: RegistryHarness;
beforeAll(async () => {
  h = await startRegistryHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('POST /v1/svc/claims', () => {
  it('when a platform claims an identity, then 201 with a pending BRONZE claim, its images and the next step', async () => {
    const p = h.platform();
    const res = await p.call('POST', '/v1/svc/claims', claimBody());
    expect(res.status).toBe(201);
    const claim = res.body.data;
    expect(claim).toEqual({
      id: expect.stringMatching(/^claim_[0-9A-Za-z]{16,}$/),
      name: 'Ada Lovelace',
      variations: ['Countess of Lovelace', 'A. Lovelace'],
      entityType: 'INDIVIDUAL',
      status: 'pending',
      verificationTier: 'BRONZE',
      createdAt: '2026-11-22T10:00:00.000Z',
      hasBox: false,
      proofs: [],
      referenceImages: [
        {
          id: expect.stringMatching(/^img_/),
          url: 'https://img.example.com/ada-1.jpg',
          isPrimary: true,
          face: { status: 'pending' },
        },
        {
          id: expect.stringMatching(/^img_/),
          url: 'https://img.example.com/ada-2.jpg',
          isPrimary: false,
          face: { status: 'pending' },
        },
      ],
      nextStep: { action: 'verify_identity', url: `${VERIFICATION_BASE_URL}/claims/${claim.id}` },
    });
  });

  it('when a claim is created, then registry.claim.created is in the outbox and delivered on the bus', async () => {
    const p = h.platform();
    const res = await p.call('POST', '/v1/svc/claims', claimBody({ name: 'José Ñúñez' }));
    const id = res.body.data.id;
    const outbox = await h.outbox();
    expect(outbox.find((e) => e.type === 'registry.claim.created' && e.data.claimId === id)).toBeDefined();
    const event = await h.waitForEvent('registry.claim.created', (e) => e.data.claimId === id);
    expect(event.platformId).toBe(p.platformId);
    expect(event.data).toMatchObject({
      ownerPlatformId: p.platformId,
      name: 'José Ñúñez',
      status: 'pending',
      verificationTier: 'BRONZE',
      entityType: 'INDIVIDUAL',
      referenceImages: [
        expect.objectContaining({ isPrimary: true }),
        expect.objectContaining({ isPrimary: false }),
      ],
    });
  });

  it('when no image is marked primary, then the first becomes primary; duplicate variations (any case) are kept once', async () => {
    const res = await h.platform().call(
      'POST',
      '/v1/svc/claims',
      claimBody({
        variations: ['Ada', 'ADA', 'ada ', 'Lovelace'],
        referenceImages: [{ url: 'https://a.example/1.png' }, { url: 'http://a.example/2.png' }],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.variations).toEqual(['Ada', 'Lovelace']);
    expect(res.body.data.referenceImages.map((i: { isPrimary: boolean }) => i.isPrimary)).toEqual([
      true,
      false,
    ]);
  });

  it.each([
    ['empty', ''],
    ['only whitespace', '   '],
    ['only punctuation', '.-!?'],
    ['over 200 characters', 'a'.repeat(201)],
    ['a control character', 'Ada\u0000Lovelace'],
    ['a newline', 'Ada\nLovelace'],
  ])('when the name is %s, then 400 INVALID_NAME', async (_what, name) => {
    const res = await h.platform().call('POST', '/v1/svc/claims', claimBody({ name }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_NAME');
    expect(res.body.error.details.field).toBe('name');
  });

  it('when a variation breaks the name rules, then 400 INVALID_NAME naming the variation', async () => {
    const res = await h
      .platform()
      .call('POST', '/v1/svc/claims', claimBody({ variations: ['ok', '\u0007'] }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_NAME');
    expect(res.body.error.details.field).toBe('variations.1');
  });

  it.each([
    ['an unknown entityType', { entityType: 'ROBOT' }, 'entityType'],
    ['no images', { referenceImages: [] }, 'referenceImages'],
    ['a missing images field', { referenceImages: undefined }, 'referenceImages'],
    [
      'a non-http image url',
      { referenceImages: [{ url: 'ftp://x.example/a.jpg' }] },
      'referenceImages.0.url',
    ],
    ['a relative image url', { referenceImages: [{ url: '/a.jpg' }] }, 'referenceImages.0.url'],
    [
      'two primary images',
      {
        referenceImages: [
          { url: 'https://a.example/1', isPrimary: true },
          { url: 'https://a.example/2', isPrimary: true },
        ],
      },
      'referenceImages',
    ],
    ['a name of the wrong type', { name: 42 }, 'name'],
    ['variations that are not strings', { variations: [1] }, 'variations.0'],
  ])('when the body has %s, then 400 VALIDATION_ERROR naming the field', async (_what, overrides, field) => {
    const res = await h.platform().call('POST', '/v1/svc/claims', claimBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('when the request has no internal token, then 401 and nothing is created', async () => {
    const before = (await h.outbox()).length;
    const res = await h.raw('POST', '/v1/svc/claims', { headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect((await h.outbox()).length).toBe(before);
  });
});
