import { paymentDue, usageReported } from '@svc/contracts/billing';
import { licenseActivated } from '@svc/contracts/licensing';
import { startRegistryHarness, type Client, type RegistryHarness } from '../fixtures/registry-harness';

// Issue #15: a box's revenue includes its licenses' fees, learnt from billing.payment.due (kind
// fee). Each notice carries the period's whole current fee and a version: the highest version
// counts, whatever the order and however often the notices arrive.

let h: RegistryHarness;
let owner: Client;
let box: { id: string; claimId: string; identityName: string };

const at = (iso: string, platformId: string) => ({ occurredAt: new Date(iso), platformId });

function feeNotice(
  licenseId: string,
  payer: string,
  period: string,
  version: number,
  amountCents: number,
  kind: 'fee' | 'royalty' = 'fee',
) {
  return paymentDue.create(
    {
      paymentId: `led_${licenseId}_${period}_${kind}_${version}`,
      kind,
      version,
      licenseId,
      boxId: box.id,
      period,
      amountCents,
      currency: 'USD',
      recipient: owner.platformId,
      payerPlatformId: payer,
      dueDate: '2026-12-15T00:00:00.000Z',
    },
    at('2026-11-20T00:00:00.000Z', payer),
  );
}

beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
  const claim = await h.verifiedClaim(owner);
  box = (await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' })).body.data;

  // Alpha: a license at 29.00 since October, and 10.00 of reported revenue in November.
  await h.publish(
    licenseActivated.create(
      {
        licenseId: 'lic_alpha',
        boxId: box.id,
        claimId: box.claimId,
        identityName: box.identityName,
        tier: 'creator',
        status: 'active',
        licenseePlatformId: 'plat_alpha',
        licenseePlatformName: 'Alpha',
        boxOwnerPlatformId: owner.platformId,
        monthlyFeeCents: 2900,
        royaltyRate: 0.15,
        currency: 'USD',
        validFrom: '2026-10-01T00:00:00.000Z',
        expiresAt: '2027-10-01T00:00:00.000Z',
        autoRenew: false,
      },
      at('2026-10-01T00:00:00.000Z', 'plat_alpha'),
    ),
  );
  await h.publish(feeNotice('lic_alpha', 'plat_alpha', '2026-10', 1, 2900));
  await h.publish(feeNotice('lic_alpha', 'plat_alpha', '2026-11', 1, 2900));
  await h.publish(
    usageReported.create(
      {
        reportId: 'usage_alpha_1',
        licenseId: 'lic_alpha',
        boxId: box.id,
        licenseePlatformId: 'plat_alpha',
        licenseePlatformName: 'Alpha',
        boxOwnerPlatformId: owner.platformId,
        period: '2026-11',
        version: 1,
        metrics: { subscribers: 12 },
        users: 12,
        revenueCents: { subscriptions: 1000, messages: 0, tips: 0, ads: 0, other: 0 },
        totalRevenueCents: 1000,
        royaltyRate: 0.15,
        royaltyDueCents: 150,
        currency: 'USD',
        dueDate: '2026-12-15T00:00:00.000Z',
        reportedAt: '2026-11-20T00:00:00.000Z',
      },
      at('2026-11-20T00:00:00.000Z', 'plat_alpha'),
    ),
  );
  // The royalty notice of that report is a share of revenue already counted: not counted again.
  await h.publish(feeNotice('lic_alpha', 'plat_alpha', '2026-11', 1, 150, 'royalty'));

  // Beta (no license event seen yet): 49.00 for November, corrected to 24.50 when its license
  // ended mid-month; then the first notice is delivered again, and arrives late once more.
  const first = feeNotice('lic_beta', 'plat_beta', '2026-11', 1, 4900);
  await h.publish(first);
  await h.publish(feeNotice('lic_beta', 'plat_beta', '2026-11', 2, 2450));
  await h.publish(first);
  await h.publish(feeNotice('lic_beta', 'plat_beta', '2026-11', 1, 4900));
});
afterAll(async () => {
  await h.stop();
});

describe('box statistics revenue with license fees', () => {
  it("when fees were billed, then the period's and the lifetime revenue include them, once, at their latest amount", async () => {
    const res = await owner.call('GET', `/v1/svc/boxes/${box.id}/stats`);
    expect(res.status).toBe(200);
    expect(res.body.data.period).toBe('2026-11');
    // November: 10.00 reported + 29.00 (Alpha's fee) + 24.50 (Beta's corrected fee); October: 29.00.
    expect(res.body.data.revenue).toEqual({
      monthly: 63.5,
      lifetime: 92.5,
      byType: { subscriptions: 10, messages: 0, tips: 0, fees: 53.5 },
    });
    expect(res.body.data.platforms.topPlatforms).toEqual([
      { name: 'Alpha', revenue: 39, users: 12 },
      { name: 'plat_beta', revenue: 24.5, users: 0 },
    ]);
  });

  it('when the box is read or listed, then its summary counts the same fees', async () => {
    const detail = await owner.call('GET', `/v1/svc/boxes/${box.id}`);
    expect(detail.body.data.stats).toMatchObject({ monthlyRevenue: 63.5, lifetimeRevenue: 92.5 });
    const list = await owner.call('GET', `/v1/svc/boxes?claimId=${box.claimId}`);
    expect(list.body.data[0].stats).toMatchObject({ monthlyRevenue: 63.5 });
  });

  it('when the month turns, then the new month counts only its own fees and the lifetime keeps every one', async () => {
    h.clock.set('2026-12-01T00:00:00.000Z');
    await h.publish(feeNotice('lic_alpha', 'plat_alpha', '2026-12', 1, 2900));
    const res = await owner.call('GET', `/v1/svc/boxes/${box.id}/stats`);
    expect(res.body.data.revenue).toMatchObject({ monthly: 29, lifetime: 121.5, byType: { fees: 29 } });
  });
});
