import { startDetectionHarness, type Client, type DetectionHarness } from '../fixtures/detection-harness';
import { scene, startImageServer, type ImageServer } from '../fixtures/image-server';

describe('POST /v1/svc/identity/check/batch and the second family', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let caller: Client;
  let avatar: string;
  let ada: { claimId: string; boxId: string };
  let grace: { claimId: string };

  beforeAll(async () => {
    h = await startDetectionHarness();
    images = await startImageServer();
    images.serve('/avatar.png', await scene(2000));
    avatar = `${images.base}/avatar.png`;
    caller = h.platform();
    ada = await h.box(await h.verifiedClaim('Ada Lovelace'), {
      policy: 'MONETIZE',
      policyConfig: { royaltyRate: 0.15, revenueTypes: ['subscription'] },
      royaltyRate: 0.15,
    });
    grace = await h.verifiedClaim('Grace Hopper');
  });

  afterAll(async () => {
    await h.stop();
    await images.close();
  });

  const item = (name: string, id?: string, imageUrl = avatar) => ({ name, imageUrl, ...(id ? { id } : {}) });

  // The avatar picture shows no face: each item that had it says so (docs/spec/contracts.md §15).
  const noFace = { score: 0, band: 'none', faces: 0 };

  it('when a batch is checked, then each result echoes its id, in order, with totals in meta', async () => {
    const { status, body } = await caller.call('POST', '/v1/svc/identity/check/batch', {
      identities: [item('Ada Lovelace', 'a-1'), item('Nobody Inparticular', 'a-2'), item('Grace Hopper')],
    });
    expect(status).toBe(200);
    expect(body.results).toEqual([
      {
        id: 'a-1',
        name: 'Ada Lovelace',
        isBoxed: true,
        isClaimed: true,
        confidence: 1,
        policy: 'MONETIZE',
        royaltyRate: 0.15,
        action: 'TRACK_REVENUE',
        matchLayer: 'name',
        likeness: noFace,
      },
      {
        id: 'a-2',
        name: 'Nobody Inparticular',
        isBoxed: false,
        isClaimed: false,
        confidence: 0,
        action: 'ALLOW',
        likeness: noFace,
      },
      {
        name: 'Grace Hopper',
        isBoxed: false,
        isClaimed: true,
        confidence: 1,
        action: 'ALLOW',
        matchLayer: 'name',
        likeness: noFace,
      },
    ]);
    expect(body.meta).toEqual({ total: 3, boxed: 1, unprotected: 2, processingTime: expect.any(Number) });
    expect(body.data).toBeUndefined();
  });

  it('when a batch holds 100 identities, then all are checked; 101, then 400 BATCH_TOO_LARGE', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) =>
      item(i % 2 === 0 ? 'Ada Lovelace' : `Person Number${i}`, `n${i}`),
    );
    const ok = await caller.call('POST', '/v1/svc/identity/check/batch', { identities: hundred });
    expect(ok.status).toBe(200);
    expect(ok.body.meta).toMatchObject({ total: 100, boxed: 50, unprotected: 50 });
    const tooMany = await caller.call('POST', '/v1/svc/identity/check/batch', {
      identities: [...hundred, item('One More')],
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({
      code: 'BATCH_TOO_LARGE',
      details: { limit: 100, received: 101 },
    });
  });

  it("when a batch meets LICENSE boxes, then each item's action follows the caller's own active license on that box", async () => {
    const licensed = await h.box(await h.verifiedClaim('Katherine Johnson'), { policy: 'LICENSE' });
    await h.box(await h.verifiedClaim('Dorothy Vaughan'), { policy: 'LICENSE' });
    const licensee = h.platform();
    await h.activeLicense(licensee, licensed.boxId, new Date('2027-11-22T00:00:00Z'));
    const identities = [
      item('Katherine Johnson', 'k'),
      item('Dorothy Vaughan', 'd'),
      item('Katherine Jonson', 'k-typo'),
      item('Nobody Inparticular', 'n'),
    ];
    const actions = async (client: Client) =>
      (await client.call('POST', '/v1/svc/identity/check/batch', { identities })).body.results.map(
        (r: { id: string; action: string }) => [r.id, r.action],
      );
    expect(await actions(licensee)).toEqual([
      ['k', 'ALLOW'],
      ['d', 'REQUIRE_LICENSE'],
      ['k-typo', 'ALLOW'],
      ['n', 'ALLOW'],
    ]);
    expect(await actions(caller)).toEqual([
      ['k', 'REQUIRE_LICENSE'],
      ['d', 'REQUIRE_LICENSE'],
      ['k-typo', 'REQUIRE_LICENSE'],
      ['n', 'ALLOW'],
    ]);
    // A batch meeting one LICENSE box after one meeting two (the statement is prepared once).
    const one = await licensee.call('POST', '/v1/svc/identity/check/batch', {
      identities: [item('Katherine Johnson', 'k')],
    });
    expect(one.status).toBe(200);
    expect(one.body.results[0].action).toBe('ALLOW');
  });

  it('when one name in a batch is invalid, then 400 INVALID_NAME names its position and nothing is returned', async () => {
    const { status, body } = await caller.call('POST', '/v1/svc/identity/check/batch', {
      identities: [item('Ada Lovelace'), item('Grace Hopper'), item('   ')],
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_NAME');
    expect(body.error.details.field).toBe('identities.2.name');
  });

  it('when an empty batch or no identities array is sent, then 400 VALIDATION_ERROR', async () => {
    expect(
      (await caller.call('POST', '/v1/svc/identity/check/batch', { identities: [] })).body.error.code,
    ).toBe('VALIDATION_ERROR');
    expect((await caller.call('POST', '/v1/svc/identity/check/batch', {})).body.error.code).toBe(
      'VALIDATION_ERROR',
    );
  });

  it("when one item's picture cannot be fetched, then that item carries the error and is judged on its name", async () => {
    const { status, body } = await caller.call('POST', '/v1/svc/identity/check/batch', {
      identities: [item('Ada Lovelace', 'x', `${images.base}/gone.png`), item('Grace Hopper', 'y')],
    });
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({
      id: 'x',
      isBoxed: true,
      action: 'TRACK_REVENUE',
      error: { code: 'INVALID_IMAGE_URL' },
    });
    expect(body.results[1].error).toBeUndefined();
  });

  describe('second family', () => {
    it('when POST /identity/check names a boxed identity, then BOXED with snake_case restrictions', async () => {
      const { status, body } = await caller.call('POST', '/identity/check', {
        name: 'ada lovelace',
        image_url: avatar,
        use_type: 'avatar',
      });
      expect(status).toBe(200);
      expect(body).toEqual({
        status: 'BOXED',
        identity_id: ada.claimId,
        name: 'Ada Lovelace',
        restrictions: {
          policy: 'MONETIZE',
          action: 'TRACK_REVENUE',
          enforcement: 'MODERATE',
          royalty_rate: 0.15,
        },
        confidence: 1,
        match_layer: 'name',
        likeness: { score: 0, band: 'none' },
        detection: { layer: 1, classification: 'EXACT_MATCH' },
      });
    });

    it('when the identity is claimed but not boxed, then CLAIMED; unknown, then UNCLAIMED with identity_id null', async () => {
      const claimed = await caller.call('POST', '/identity/check', {
        name: 'Grace Hopper',
        use_type: 'voice',
      });
      expect(claimed.body).toMatchObject({
        status: 'CLAIMED',
        identity_id: grace.claimId,
        restrictions: { policy: null, action: 'ALLOW' },
      });
      const unknown = await caller.call('POST', '/identity/check', { name: 'Zed Unclaimedperson' });
      expect(unknown.body).toMatchObject({ status: 'UNCLAIMED', identity_id: null });
    });

    it('when use_type is not avatar, voice or video, then 400 VALIDATION_ERROR', async () => {
      const { status, body } = await caller.call('POST', '/identity/check', {
        name: 'Ada Lovelace',
        use_type: 'hologram',
      });
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
    });

    it('when POST /identity/check/batch is called, then results and snake_case meta; 101 items, BATCH_TOO_LARGE', async () => {
      const { body } = await caller.call('POST', '/identity/check/batch', {
        identities: [
          { name: 'Ada Lovelace', id: '1' },
          { name: 'Grace Hopper', id: '2' },
          { name: 'No One Known', id: '3' },
        ],
      });
      expect(body.results.map((r: any) => [r.id, r.status])).toEqual([
        ['1', 'BOXED'],
        ['2', 'CLAIMED'],
        ['3', 'UNCLAIMED'],
      ]);
      expect(body.meta).toEqual({
        total: 3,
        boxed: 1,
        claimed: 1,
        unclaimed: 1,
        processing_time: expect.any(Number),
      });
      const tooMany = await caller.call('POST', '/identity/check/batch', {
        identities: Array.from({ length: 101 }, () => ({ name: 'Ada Lovelace' })),
      });
      expect(tooMany.body.error.code).toBe('BATCH_TOO_LARGE');
    });

    it('when GET /identity/status/{id} is asked by claim id or box id, then the boxing status; unknown, 404', async () => {
      const byClaim = await caller.call('GET', `/identity/status/${ada.claimId}`);
      expect(byClaim.status).toBe(200);
      expect(byClaim.body).toEqual({
        identity_id: ada.claimId,
        name: 'Ada Lovelace',
        status: 'BOXED',
        policy: 'MONETIZE',
        enforcement: 'MODERATE',
        box_id: ada.boxId,
        boxed_at: '2026-11-02T00:00:00.000Z',
        verified_at: '2026-11-01T00:00:00.000Z',
      });
      expect((await caller.call('GET', `/identity/status/${ada.boxId}`)).body.identity_id).toBe(ada.claimId);
      expect((await caller.call('GET', `/identity/status/${grace.claimId}`)).body.status).toBe('CLAIMED');
      const unknown = await caller.call('GET', '/identity/status/claim_doesnotexist0000');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('NOT_FOUND');
    });
  });
});
