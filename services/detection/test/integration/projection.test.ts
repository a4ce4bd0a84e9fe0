import { boxIndexed } from '@svc/contracts';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
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

  it('when another replica starts on the same database, then it loads every identity before it serves', async () => {
    await h.box(await h.verifiedClaim('Emmy Noether'), { policy: 'BLOCK_ALL' });
    const config = loadConfig(detectionConfigSchema, {
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://unused/handed-in',
      INTERNAL_JWT_SECRET: JWT_SECRET,
      LOG_LEVEL: 'silent',
      INDEX_SYNC_INTERVAL_MS: '50',
      REFERENCE_IMAGE_INTERVAL_MS: '0',
      // A cold load from the projection (snapshots have their own test).
      INDEX_SNAPSHOTS: 'false',
    });
    const replica = await startDetection(config, {
      db: h.running.db,
      bus: new InProcessMessageBus({ logger: silent }),
      logger: silent,
    });
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
});
