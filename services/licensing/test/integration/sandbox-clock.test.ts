import { clockAdvanced } from '@svc/contracts';
import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// enforcement.clock.advanced: a platform's sandbox clock moved; its licenses follow it.
let h: LicensingHarness;
beforeEach(async () => {
  h = await startLicensingHarness();
});
afterEach(async () => {
  await h.stop();
});

function advanced(platformId: string, now: string) {
  return clockAdvanced.create(
    { platformId, now, advancedBySeconds: 1 },
    { occurredAt: new Date(now), platformId },
  );
}

describe('enforcement.clock.advanced', () => {
  it("when a licensee's sandbox clock passes expiresAt, then its license expires (at that time), others' stay active", async () => {
    const mover = h.platform();
    const bystander = h.platform();
    const { license } = await h.activeLicense(mover, { autoRenew: false });
    const { license: other } = await h.activeLicense(bystander, { autoRenew: false });
    await h.publish(advanced(mover.platformId, '2026-12-22T09:59:59.000Z'));
    expect((await mover.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('active');
    await h.publish(advanced(mover.platformId, '2026-12-25T00:00:00.000Z'));
    expect((await mover.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('expired');
    const event = await h.waitForEvent('licensing.license.expired', (e) => e.data.licenseId === license.id);
    expect(event.occurredAt).toBe('2026-12-25T00:00:00.000Z');
    expect((await bystander.call('GET', `/v1/svc/licenses/${other.id}`)).body.data.status).toBe('active');
  });

  it('when the license renews automatically, then it is renewed per term passed; a redelivered event changes nothing', async () => {
    const mover = h.platform();
    const { license } = await h.activeLicense(mover);
    const event = advanced(mover.platformId, '2027-01-23T00:00:00.000Z');
    await h.publish(event);
    await h.publish(event);
    const detail = await mover.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(detail.body.data).toMatchObject({ status: 'active', expiresAt: '2027-02-22T10:00:00.000Z' });
    await h.waitForEvent('licensing.license.renewed', (e) => e.data.newExpiry === '2027-02-22T10:00:00.000Z');
    expect(
      h.delivered.filter((e) => e.type === 'licensing.license.renewed' && e.data.licenseId === license.id),
    ).toHaveLength(2);
  });
});
