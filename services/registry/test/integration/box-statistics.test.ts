import { usageReported } from '@svc/contracts/billing';
import {
  gracePeriodExpired,
  gracePeriodResolved,
  gracePeriodStarted,
  violationAppealed,
  violationCreated,
  violationResolved,
} from '@svc/contracts/enforcement';
import { licenseActivated, licenseExpired, licenseRequestCreated } from '@svc/contracts/licensing';
import { startRegistryHarness, type Client, type RegistryHarness } from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
let box: any;

const at = (iso: string) => ({ occurredAt: new Date(iso), platformId: 'plat_host00000000000000000001' });

function violation<E extends object>(id: string, extra: E) {
  return {
    violationId: id,
    boxId: box.id,
    claimId: box.claimId,
    identityName: box.identityName,
    boxOwnerPlatformId: owner.platformId,
    policy: 'LICENSE' as const,
    severity: 'high' as const,
    avatarId: `av_${id}`,
    userCount: 10,
    gracePeriodId: null,
    occurredAt: '2026-11-10T00:00:00.000Z',
    ...extra,
  } as const;
}

function gracePeriod(id: string, status: 'active' | 'resolved' | 'expired') {
  return {
    gracePeriodId: id,
    violationId: 'viol_x',
    boxId: box.id,
    claimId: box.claimId,
    identityName: box.identityName,
    boxOwnerPlatformId: owner.platformId,
    policy: 'LICENSE' as const,
    status,
    startedAt: '2026-11-10T00:00:00.000Z',
    expiresAt: '2026-12-10T00:00:00.000Z',
    daysRemaining: 10,
    avatarIds: ['av_1'],
  };
}

function license(id: string, platform: string, status: 'active' | 'expired') {
  return {
    licenseId: id,
    boxId: box.id,
    claimId: box.claimId,
    identityName: box.identityName,
    tier: 'creator' as const,
    status,
    licenseePlatformId: `plat_${platform}`,
    licenseePlatformName: platform,
    boxOwnerPlatformId: owner.platformId,
    monthlyFeeCents: 2900,
    royaltyRate: 0.1,
    currency: 'USD',
    validFrom: '2026-01-01T00:00:00.000Z',
    expiresAt: '2027-01-01T00:00:00.000Z',
    autoRenew: false,
  };
}

function usage(
  licenseId: string,
  platform: string,
  period: string,
  version: number,
  cents: [number, number, number],
  users: number,
) {
  const [subscriptions, messages, tips] = cents;
  return {
    reportId: `usage_${licenseId}_${period}_${version}`,
    licenseId,
    boxId: box.id,
    licenseePlatformId: `plat_${platform}`,
    licenseePlatformName: platform,
    boxOwnerPlatformId: owner.platformId,
    period,
    version,
    metrics: { subscribers: users },
    users,
    revenueCents: { subscriptions, messages, tips, ads: 0, other: 0 },
    totalRevenueCents: subscriptions + messages + tips,
    royaltyRate: 0.1,
    royaltyDueCents: Math.round((subscriptions + messages + tips) / 10),
    currency: 'USD',
    dueDate: '2026-12-15T00:00:00.000Z',
    reportedAt: '2026-11-20T00:00:00.000Z',
  };
}

beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
  const claim = await h.verifiedClaim(owner);
  box = (await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' })).body.data;

  // Violations: v1 detected then resolved; v2 resolved event arrives BEFORE its created event;
  // v3 appealed; v4 pending, delivered twice; v5 detected last month.
  const created1 = violationCreated.create(
    violation('viol_1', { detectedAt: '2026-11-10T00:00:00.000Z', confidence: 0.9 }),
    at('2026-11-10T00:00:00.000Z'),
  );
  await h.publish(created1);
  await h.publish(
    violationResolved.create(
      violation('viol_1', {
        resolution: 'licensed',
        resolvedAt: '2026-11-12T00:00:00.000Z',
        licenseId: 'lic_1',
        resolvedBy: 'license',
      }),
      at('2026-11-12T00:00:00.000Z'),
    ),
  );
  await h.publish(
    violationResolved.create(
      violation('viol_2', { resolution: 'removed', resolvedAt: '2026-11-15T00:00:00.000Z', licenseId: null }),
      at('2026-11-15T00:00:00.000Z'),
    ),
  );
  await h.publish(
    violationCreated.create(
      violation('viol_2', { detectedAt: '2026-11-11T00:00:00.000Z', confidence: 0.8 }),
      at('2026-11-11T00:00:00.000Z'),
    ),
  );
  await h.publish(
    violationCreated.create(
      violation('viol_3', { detectedAt: '2026-11-13T00:00:00.000Z', confidence: 0.8 }),
      at('2026-11-13T00:00:00.000Z'),
    ),
  );
  await h.publish(
    violationAppealed.create(
      violation('viol_3', { appealId: 'appeal_1', reason: 'parody' }),
      at('2026-11-14T00:00:00.000Z'),
    ),
  );
  const created4 = violationCreated.create(
    violation('viol_4', { detectedAt: '2026-11-16T00:00:00.000Z', confidence: 0.7 }),
    at('2026-11-16T00:00:00.000Z'),
  );
  await h.publish(created4);
  await h.publish(created4);
  await h.publish(
    violationCreated.create(
      violation('viol_5', { detectedAt: '2026-10-20T00:00:00.000Z', confidence: 0.7 }),
      at('2026-10-20T00:00:00.000Z'),
    ),
  );

  // Grace periods: gp1 started then resolved; gp2 expired arrives before started; gp3 active.
  await h.publish(gracePeriodStarted.create(gracePeriod('gp_1', 'active'), at('2026-11-10T00:00:00.000Z')));
  await h.publish(
    gracePeriodResolved.create(
      { ...gracePeriod('gp_1', 'resolved'), resolution: 'licensed', remainingAvatars: 0 },
      at('2026-11-12T00:00:00.000Z'),
    ),
  );
  await h.publish(gracePeriodExpired.create(gracePeriod('gp_2', 'expired'), at('2026-11-20T00:00:00.000Z')));
  await h.publish(gracePeriodStarted.create(gracePeriod('gp_2', 'active'), at('2026-10-21T00:00:00.000Z')));
  const started3 = gracePeriodStarted.create(gracePeriod('gp_3', 'active'), at('2026-11-16T00:00:00.000Z'));
  await h.publish(started3);
  await h.publish(started3);

  // Licenses: two active (two platforms), one expired; one pending request.
  await h.publish(
    licenseActivated.create(license('lic_1', 'Alpha', 'active'), at('2026-11-01T00:00:00.000Z')),
  );
  await h.publish(
    licenseActivated.create(license('lic_2', 'Beta', 'active'), at('2026-11-02T00:00:00.000Z')),
  );
  await h.publish(
    licenseActivated.create(license('lic_3', 'Gamma', 'active'), at('2026-06-01T00:00:00.000Z')),
  );
  await h.publish(
    licenseExpired.create(license('lic_3', 'Gamma', 'expired'), at('2026-10-01T00:00:00.000Z')),
  );
  await h.publish(
    licenseRequestCreated.create(
      {
        requestId: 'req_1',
        boxId: box.id,
        claimId: box.claimId,
        identityName: box.identityName,
        tier: 'personal',
        licenseePlatformId: 'plat_Delta',
        boxOwnerPlatformId: owner.platformId,
        submittedAt: '2026-11-18T00:00:00.000Z',
      },
      at('2026-11-18T00:00:00.000Z'),
    ),
  );

  // Usage (cents): Alpha reports, then corrects (version 2 replaces 1); a stale version 1 arrives
  // again afterwards and changes nothing. Beta reports; Gamma reported last month.
  await h.publish(
    usageReported.create(
      usage('lic_1', 'Alpha', '2026-11', 1, [1000, 500, 100], 40),
      at('2026-11-20T00:00:00.000Z'),
    ),
  );
  await h.publish(
    usageReported.create(
      usage('lic_1', 'Alpha', '2026-11', 2, [1999, 501, 110], 42),
      at('2026-11-21T00:00:00.000Z'),
    ),
  );
  await h.publish(
    usageReported.create(usage('lic_1', 'Alpha', '2026-11', 1, [1, 1, 1], 1), at('2026-11-21T00:00:01.000Z')),
  );
  await h.publish(
    usageReported.create(
      usage('lic_2', 'Beta', '2026-11', 1, [3333, 0, 0], 7),
      at('2026-11-20T00:00:00.000Z'),
    ),
  );
  await h.publish(
    usageReported.create(
      usage('lic_3', 'Gamma', '2026-10', 1, [10001, 0, 0], 99),
      at('2026-10-31T00:00:00.000Z'),
    ),
  );
});
afterAll(async () => {
  await h.stop();
});

describe('GET /v1/svc/boxes/:id/stats (read model of other services’ events)', () => {
  it('when events arrived out of order and twice, then the statistics of the current period count each fact once', async () => {
    const res = await owner.call('GET', `/v1/svc/boxes/${box.id}/stats`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      boxId: box.id,
      period: '2026-11',
      // detected and resolved: within the period; pending and appealed: open now (viol_5 is from October).
      // By resolution and by who resolved it (viol_2's event predates resolvedBy).
      violations: {
        detected: 4,
        resolved: 2,
        pending: 2,
        appealed: 1,
        resolutions: { licensed: 1, removed: 1, modified: 0, parody: 0 },
        resolvedBy: { platform: 0, license: 1, avatarChange: 0 },
      },
      gracePeriods: { active: 1, expired: 1, resolved: 1 },
      licenses: { total: 3, active: 2, pending: 1, expired: 1 },
      revenue: {
        monthly: 59.43,
        lifetime: 159.44,
        byType: { subscriptions: 53.32, messages: 5.01, tips: 1.1, fees: 0 },
      },
      platforms: {
        licensed: 2,
        topPlatforms: [
          { name: 'Beta', revenue: 33.33, users: 7 },
          { name: 'Alpha', revenue: 26.1, users: 42 },
        ],
      },
    });
  });

  it('when the box is listed or read, then its stats summary reflects the same facts', async () => {
    const detail = await owner.call('GET', `/v1/svc/boxes/${box.id}`);
    expect(detail.body.data.stats).toEqual({
      totalViolations: 5,
      resolvedViolations: 2,
      activeGracePeriods: 1,
      licensedPlatforms: 2,
      totalLicenses: 3,
      monthlyRevenue: 59.43,
      lifetimeRevenue: 159.44,
    });
    const list = await h.platform().call('GET', '/v1/svc/boxes');
    expect(list.body.data[0].stats).toEqual({
      totalViolations: 5,
      activeGracePeriods: 1,
      licensedPlatforms: 2,
      monthlyRevenue: 59.43,
    });
  });

  it('when a duplicate was delivered, then it was recorded as processed once per consumer', async () => {
    const { rows } = await h.running.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM processed_messages WHERE consumer = 'registry.box-stats.violations'`,
    );
    expect(rows[0]?.n).toBe(8);
  });

  it('when another platform asks for the statistics, then 404 even though it can read the box', async () => {
    const other = h.platform();
    expect((await other.call('GET', `/v1/svc/boxes/${box.id}`)).status).toBe(200);
    const res = await other.call('GET', `/v1/svc/boxes/${box.id}/stats`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('when a past month is asked for (period=YYYY-MM), then its detections, revenue and platforms are those of that month', async () => {
    const res = await owner.call('GET', `/v1/svc/boxes/${box.id}/stats?period=2026-10`);
    expect(res.status).toBe(200);
    expect(res.body.data.period).toBe('2026-10');
    // viol_5 was detected in October; the states (pending, appealed) are as of now.
    expect(res.body.data.violations).toMatchObject({ detected: 1, resolved: 0, pending: 2, appealed: 1 });
    expect(res.body.data.revenue).toMatchObject({
      monthly: 100.01,
      lifetime: 159.44,
      byType: { subscriptions: 100.01, messages: 0, tips: 0, fees: 0 },
    });
    expect(res.body.data.platforms.topPlatforms).toEqual([{ name: 'Gamma', revenue: 100.01, users: 99 }]);
  });

  it('when the period is not a month, then 400 VALIDATION_ERROR names the field', async () => {
    const res = await owner.call('GET', `/v1/svc/boxes/${box.id}/stats?period=2026-13`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields).toEqual([{ field: 'query.period', message: 'expected YYYY-MM' }]);
  });

  it('when the month turns, then the period moves and monthly figures start again', async () => {
    h.clock.set('2026-12-01T00:00:00.000Z');
    const res = await owner.call('GET', `/v1/svc/boxes/${box.id}/stats`);
    expect(res.body.data.period).toBe('2026-12');
    expect(res.body.data.revenue.monthly).toBe(0);
    expect(res.body.data.revenue.lifetime).toBe(159.44);
    expect(res.body.data.violations.detected).toBe(0);
  });
});
