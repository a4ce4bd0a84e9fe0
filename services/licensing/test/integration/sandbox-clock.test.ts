import { clockAdvanced } from '@svc/contracts/enforcement';
import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// enforcement.clock.advanced: a platform's sandbox clock moved; its licenses follow it.
let h: LicensingHarness;
/** Each platform's sandbox offset (ms) as the events sent so far moved it. */
let offsets: Map<string, number>;
beforeEach(async () => {
  h = await startLicensingHarness();
  offsets = new Map();
});
afterEach(async () => {
  await h.stop();
});

/** The event enforcement publishes when `platformId` moves its sandbox clock by `seconds`. */
function advancedBy(platformId: string, seconds: number) {
  const offset = (offsets.get(platformId) ?? 0) + seconds * 1000;
  offsets.set(platformId, offset);
  const now = new Date(h.clock.now().getTime() + offset).toISOString();
  return clockAdvanced.create(
    { platformId, now, advancedBySeconds: seconds },
    { occurredAt: new Date(now), platformId },
  );
}

/** The event of a move of `platformId`'s sandbox clock to `now`. */
function advanced(platformId: string, now: string) {
  const platformNow = h.clock.now().getTime() + (offsets.get(platformId) ?? 0);
  return advancedBy(platformId, (Date.parse(now) - platformNow) / 1000);
}

const DAY_S = 86_400;

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

  it("when a platform's clock moved N days, then its new license, its license detail and a cancellation at the end of the billing period are on its moved time; another platform's are not", async () => {
    const mover = h.platform();
    const bystander = h.platform();
    await h.publish(advancedBy(mover.platformId, 40 * DAY_S)); // real 2026-11-22T10:00, moved 2027-01-01T10:00
    const { license } = await h.activeLicense(mover);
    const { license: other } = await h.activeLicense(bystander);
    expect(license).toMatchObject({
      validFrom: '2027-01-01T10:00:00.000Z',
      expiresAt: '2027-02-01T10:00:00.000Z',
    });
    expect(license.usage.currentPeriod).toBe('2027-01');
    expect(license.fees.currentPeriod).toBe('2027-01');
    expect(other).toMatchObject({
      validFrom: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-12-22T10:00:00.000Z',
    });
    expect(other.usage.currentPeriod).toBe('2026-11');
    expect(other.fees.currentPeriod).toBe('2026-11');
    const activated = await h.waitForEvent(
      'licensing.license.activated',
      (e) => e.data.licenseId === license.id,
    );
    expect(activated.occurredAt).toBe('2027-01-01T10:00:00.000Z');

    const cancel = { effectiveDate: 'end_of_billing_period' };
    const scheduled = await mover.call('DELETE', `/v1/svc/licenses/${license.id}`, cancel);
    expect(scheduled.body.data).toMatchObject({ status: 'active', cancelsAt: '2027-02-01T00:00:00.000Z' });
    const otherScheduled = await bystander.call('DELETE', `/v1/svc/licenses/${other.id}`, cancel);
    expect(otherScheduled.body.data).toMatchObject({
      status: 'active',
      cancelsAt: '2026-12-01T00:00:00.000Z',
    });

    // The expiry job judges each licensee on its own clock: 2027-02-01 is 30 days 14 hours away for the mover.
    h.clock.set('2026-12-22T13:59:59.000Z');
    await h.running.expireDueLicenses();
    expect((await mover.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('active');
    h.clock.set('2026-12-23T00:00:00.000Z');
    await h.running.expireDueLicenses();
    expect((await mover.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('cancelled');
    const cancelled = await h.waitForEvent(
      'licensing.license.cancelled',
      (e) => e.data.licenseId === license.id,
    );
    expect(cancelled.data).toMatchObject({ effectiveAt: '2027-02-01T00:00:00.000Z' });
    expect(cancelled.occurredAt).toBe('2027-02-01T00:00:00.000Z');
  });

  it('when a clock event is redelivered, then the clock moves once', async () => {
    const mover = h.platform();
    const event = advancedBy(mover.platformId, 10 * DAY_S);
    await h.publish(event);
    await h.publish(event);
    const { license } = await h.activeLicense(mover);
    expect(license.validFrom).toBe('2026-12-02T10:00:00.000Z');
    await h.publish(advancedBy(mover.platformId, DAY_S));
    const { license: next } = await h.activeLicense(mover);
    expect(next.validFrom).toBe('2026-12-03T10:00:00.000Z');
  });
});
