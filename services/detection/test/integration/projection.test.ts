import { AVATAR_EVALUATION_PATH, boxIndexed } from '@svc/contracts/detection';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { internalClient, platformClaims } from '@svc/test-kit';
import { detectionConfigSchema, startDetection } from '../../src';
import {
  JWT_SECRET,
  startDetectionHarness,
  type Client,
  type DetectionHarness,
} from '../fixtures/detection-harness';

const silent = createLogger('test', { level: 'silent' });

describe('the identity index, a projection of registry and licensing events', () => {
  let h: DetectionHarness;
  let caller: Client;

  beforeAll(async () => {
    h = await startDetectionHarness();
    caller = h.platform();
  });

  afterAll(async () => {
    await h.stop();
  });

  const check = async (name: string) =>
    (await caller.call('POST', '/identity/check', { name })).body as {
      status: string;
      identity_id: string | null;
      restrictions: any;
    };

  it('when a claim is verified and then boxed, then it is CLAIMED and then BOXED as soon as each event is handled', async () => {
    const claim = await h.verifiedClaim('Hedy Lamarr');
    expect(await check('Hedy Lamarr')).toMatchObject({ status: 'CLAIMED', identity_id: claim.claimId });
    await h.box(claim, { policy: 'BLOCK_ALL' });
    expect(await check('Hedy Lamarr')).toMatchObject({ status: 'BOXED', restrictions: { action: 'BLOCK' } });
  });

  it('when a box is first indexed, then detection.box.indexed is published once with firstIndexed, later updates without', async () => {
    const claim = await h.verifiedClaim('Rosalind Franklin');
    const boxed = await h.box(claim, { policy: 'LICENSE' });
    await h.updateBox(boxed, { policy: 'BLOCK_ALL' }, new Date(h.clock.now().getTime() + 60_000));
    await h.running.relay.publishPending();
    const announcements = h.delivered
      .filter((e) => e.type === boxIndexed.type)
      .map((e) => boxIndexed.parse(e).data)
      .filter((d) => d.boxId === boxed.boxId);
    expect(announcements.map((a) => [a.firstIndexed, a.policy])).toEqual([
      [true, 'LICENSE'],
      [false, 'BLOCK_ALL'],
    ]);
    expect(announcements[0]).toMatchObject({
      claimId: claim.claimId,
      ownerPlatformId: claim.ownerPlatformId,
      referenceImagesIndexed: 0,
    });
  });

  it('when an older box update arrives after a newer one, then the newer policy stays', async () => {
    const boxed = await h.box(await h.verifiedClaim('Lise Meitner'), { policy: 'LICENSE' });
    await h.updateBox(boxed, { policy: 'OPEN' }, new Date('2026-12-01T00:00:00Z'));
    await h.updateBox(boxed, { policy: 'BLOCK_ALL' }, new Date('2026-11-30T00:00:00Z'));
    expect((await check('Lise Meitner')).restrictions.policy).toBe('OPEN');
  });

  it('when a box is deleted, then the identity is CLAIMED again; when the claim is deleted, UNCLAIMED', async () => {
    const boxed = await h.box(await h.verifiedClaim('Chien-Shiung Wu'), { policy: 'BLOCK_ALL' });
    await h.deleteBox(boxed);
    expect((await check('Chien-Shiung Wu')).status).toBe('CLAIMED');
    await h.deleteClaim(boxed);
    expect((await check('Chien-Shiung Wu')).status).toBe('UNCLAIMED');
  });

  it('when a claim gains a variation, then the variation matches; when it is suspended, then nothing matches', async () => {
    const claim = await h.verifiedClaim('Katherine Johnson');
    await h.updateClaim(claim, { variations: ['Katherine Coleman Goble'] });
    expect(await check('Katherine Coleman Goble')).toMatchObject({
      status: 'CLAIMED',
      identity_id: claim.claimId,
    });
    await h.updateClaim(claim, { status: 'suspended' });
    expect((await check('Katherine Johnson')).status).toBe('UNCLAIMED');
  });

  it('when the same event is delivered twice, then it is applied once (no second announcement)', async () => {
    const boxed = await h.box(await h.verifiedClaim('Mary Anning'), { policy: 'LICENSE' });
    const created = h.published.at(-1);
    expect(created?.type).toBe('registry.box.created');
    const announcements = () =>
      h.delivered.filter(
        (e) => e.type === boxIndexed.type && (e.data as { boxId: string }).boxId === boxed.boxId,
      ).length;
    await h.running.relay.publishPending();
    expect(announcements()).toBe(1);
    if (created) await h.bus.publish(created);
    await h.running.relay.publishPending();
    expect(announcements()).toBe(1);
  });

  /** A second replica on the same database, with its own bus (it consumes nothing here). */
  const startReplica = (syncIntervalMs: number) =>
    startDetection(
      loadConfig(detectionConfigSchema, {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: 'postgres://unused/handed-in',
        INTERNAL_JWT_SECRET: JWT_SECRET,
        LOG_LEVEL: 'silent',
        INDEX_SYNC_INTERVAL_MS: String(syncIntervalMs),
        REFERENCE_IMAGE_INTERVAL_MS: '0',
        // A cold load from the projection (snapshots have their own test).
        INDEX_SNAPSHOTS: 'false',
      }),
      { db: h.running.db, bus: new InProcessMessageBus({ logger: silent }), logger: silent },
    );

  it('when another replica starts on the same database, then it loads every identity before it serves', async () => {
    await h.box(await h.verifiedClaim('Emmy Noether'), { policy: 'BLOCK_ALL' });
    const replica = await startReplica(50);
    try {
      expect(replica.catalogue.size).toBe(h.running.catalogue.size);
      // A change applied by the first replica reaches the second within its sync interval.
      const later = await h.verifiedClaim('Ada Yonath');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(replica.catalogue.byClaimId(later.claimId)?.name).toBe('Ada Yonath');
    } finally {
      await replica.stop();
    }
  });

  it('when a box was applied by another replica and this one has not synced yet, then an avatar evaluated in full still matches it', async () => {
    // Enforcement's scan of a new box reads the avatars reported before it; an avatar reported
    // after the scan read its page is evaluated in full, by any replica. A replica answering from
    // an index that lacks the box (no sync pass since, or its refresh failed while the database
    // refused connections) would say "no match" and the avatar would never become a violation.
    const replica = await startReplica(0);
    try {
      const boxed = await h.box(await h.verifiedClaim('Chien-Shiung Wu'), { policy: 'BLOCK_ALL' });
      expect(replica.catalogue.byBoxId(boxed.boxId)).toBeUndefined();
      const enforcement = internalClient(replica.url, JWT_SECRET, platformClaims());
      const { status, body } = await enforcement.call('POST', AVATAR_EVALUATION_PATH, {
        avatars: [{ ref: 'av_late', name: 'Chien-Shiung Wu' }],
      });
      expect(status).toBe(200);
      expect(body.results).toEqual([
        { ref: 'av_late', match: expect.objectContaining({ boxId: boxed.boxId }) },
      ]);
    } finally {
      await replica.stop();
    }
  });
});
