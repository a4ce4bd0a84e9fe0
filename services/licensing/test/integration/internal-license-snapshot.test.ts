import { snapshotPath } from '@svc/contracts/common';
import { INTERNAL_LICENSE_PATH, licenseSnapshotSchema } from '@svc/contracts/licensing';
import { newId } from '@svc/ids';
import { serviceClaims } from '@svc/service-kit';
import { internalClient } from '@svc/test-kit';
import { JWT_SECRET, startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// ADR 0010: licensing answers a service whose projection misses a license with the license as
// its events describe it and the entity version of its latest event.

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('GET /internal/licenses/:id (read-through for other services)', () => {
  const service = () => internalClient(h.running.url, JWT_SECRET, serviceClaims('billing', 'sandbox'));

  it('when a service asks for a license just activated, then it gets it at the version of its latest event', async () => {
    const licensee = h.platform();
    const { license } = await h.activeLicense(licensee);
    const reply = await service().call('GET', snapshotPath(INTERNAL_LICENSE_PATH, license.id));
    expect(reply.status).toBe(200);
    const snapshot = licenseSnapshotSchema.parse(reply.body).data;
    expect(snapshot.entity).toMatchObject({
      licenseId: license.id,
      status: 'active',
      licenseePlatformId: licensee.platformId,
      endedAt: null,
    });
    const activated = await h.waitForEvent(
      'licensing.license.activated',
      (e) => e.data.licenseId === license.id,
    );
    expect(activated.entity).toEqual({ id: license.id, version: snapshot.version });
    expect(snapshot.version).toBe(1);
  });

  it("when the license does not exist, or a platform's token asks, then 404", async () => {
    expect((await service().call('GET', snapshotPath(INTERNAL_LICENSE_PATH, newId('lic')))).status).toBe(404);
    const licensee = h.platform();
    const { license } = await h.activeLicense(licensee);
    expect((await licensee.call('GET', snapshotPath(INTERNAL_LICENSE_PATH, license.id))).status).toBe(404);
  });
});
