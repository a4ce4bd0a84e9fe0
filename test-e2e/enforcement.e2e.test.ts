import {
  connectTestBroker,
  startTestCluster,
  uniqueSuffix,
  waitFor,
  type TestBroker,
  type TestCluster,
} from '@svc/test-kit';
import { call, newPlatformKey, ROOT } from './helpers';

// Enforcement through the gateway in cluster mode: registry, detection, licensing and enforcement
// are their own processes on PostgreSQL and RabbitMQ. A verified claim is boxed; detection indexes
// it; a platform's avatar breaks the box, is appealed, the appeal denied, the sandbox clock moved
// past the grace period: the violation is enforced, with every event on the bus.
let cluster: TestCluster;
let broker: TestBroker;

beforeAll(async () => {
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'detection', 'licensing', 'enforcement'],
    output: 'silent',
  });
  broker = await connectTestBroker(cluster.amqpUrl, ['enforcement.#', 'detection.box.indexed']);
}, 90_000);

afterAll(async () => {
  await broker?.close();
  await cluster?.teardown();
});

async function newKey(name: string): Promise<string> {
  return newPlatformKey(cluster, name);
}

function event(type: string, match: (data: any) => boolean) {
  return waitFor(() => broker.received.find((m) => m.routingKey === type && match(m.body.data))?.body, {
    what: `event ${type}`,
    timeoutMs: 20_000,
  });
}

describe('enforcement through the gateway (cluster mode)', () => {
  it('when an avatar breaks a box, is appealed and the appeal denied, then the moved sandbox clock enforces it', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newKey('Identity owner');
    const platform = await newKey('Avatar platform');
    const stranger = await newKey('Another platform');
    const name = `Octavia Quillfeather ${
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 5) || 'Q'
    }`;

    // An avatar reported before the box exists is found by the box's initial scan.
    const early = await call(gw, platform, 'POST', '/v1/svc/avatars', {
      id: 'early-avatar',
      name,
      creatorId: 'creator-early',
      userCount: 150,
    });
    expect(early.status).toBe(201);
    expect(early.body.data.openViolations).toEqual([]);

    const claim = await call(gw, owner, 'POST', '/v1/svc/claims', {
      name,
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/octavia.jpg' }],
    });
    expect(claim.status).toBe(201);
    const claimId = claim.body.data.id as string;
    expect((await call(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {})).status).toBe(
      200,
    );
    const box = await call(gw, owner, 'POST', '/v1/svc/boxes', {
      claimId,
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 9.99, autoApprove: false } } },
    });
    expect(box.status).toBe(201);
    const boxId = box.body.data.id as string;

    await event('detection.box.indexed', (d) => d.boxId === boxId && d.firstIndexed === true);
    const scan = await event('enforcement.box_scan.completed', (d) => d.boxId === boxId);
    expect(scan.data.violationsCreated).toBeGreaterThanOrEqual(1);
    const scanned = await call(gw, platform, 'GET', '/v1/svc/avatars/early-avatar');
    expect(scanned.body.data.openViolations).toHaveLength(1);

    const reported = await call(gw, platform, 'POST', '/v1/svc/avatars', {
      id: 'avatar-42',
      name,
      creatorId: 'creator-7',
      creatorEmail: 'creator7@example.com',
      userCount: 2500,
    });
    expect(reported.status).toBe(201);
    expect(reported.body.data).toMatchObject({
      evaluation: 'completed',
      match: { boxId, outcome: 'violation' },
    });
    const violationId = reported.body.data.openViolations[0] as string;

    const violation = await call(gw, platform, 'GET', `/v1/svc/violations/${violationId}`);
    expect(violation.status).toBe(200);
    expect(violation.body.data).toMatchObject({
      status: 'pending',
      severity: 'high',
      boxId,
      identityName: name,
      gracePeriod: { status: 'active', daysRemaining: 30 },
    });
    expect(violation.body.data.resolutionOptions[0]).toMatchObject({
      type: 'license',
      pricing: { personal: 9.99 },
    });
    const gracePeriodId = violation.body.data.gracePeriod.id as string;
    expect((await call(gw, stranger, 'GET', `/v1/svc/violations/${violationId}`)).status).toBe(404);
    await event('enforcement.grace_period.started', (d) => d.gracePeriodId === gracePeriodId);

    const appeal = await call(gw, platform, 'POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'common_name',
      explanation: 'A different Octavia',
    });
    expect(appeal.status).toBe(200);
    expect(appeal.body.data.gracePeriod.status).toBe('paused');
    const appealId = appeal.body.data.appeal.id as string;
    await event('enforcement.grace_period.paused', (d) => d.appealId === appealId);

    const denied = await call(gw, platform, 'POST', `/v1/svc/test-helpers/appeals/${appealId}/decide`, {
      outcome: 'denied',
    });
    expect(denied.status).toBe(200);
    expect(denied.body.data).toMatchObject({
      status: 'denied',
      violation: { status: 'pending' },
      gracePeriod: { status: 'active' },
    });
    await event('enforcement.grace_period.resumed', (d) => d.appealId === appealId);

    const moved = await call(gw, platform, 'POST', '/v1/svc/test-helpers/advance-time', {
      seconds: 25 * 3600,
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.stepsFired).toBeGreaterThanOrEqual(5);

    const enforced = await call(gw, platform, 'GET', `/v1/svc/violations/${violationId}`);
    expect(enforced.body.data).toMatchObject({
      status: 'enforced',
      gracePeriod: { status: 'expired', daysRemaining: 0 },
    });
    expect(enforced.body.data.notifications).toMatchObject({
      day7: { sent: true },
      day21: { sent: true },
      day28: { sent: true },
    });
    for (const day of [7, 21, 28]) {
      await event(
        'enforcement.grace_period.reminder',
        (d) => d.gracePeriodId === gracePeriodId && d.reminderDay === day,
      );
    }
    await event('enforcement.grace_period.ending', (d) => d.gracePeriodId === gracePeriodId);
    await event('enforcement.grace_period.expired', (d) => d.gracePeriodId === gracePeriodId);
    await event('enforcement.violation.enforced', (d) => d.violationId === violationId);
    await event('enforcement.clock.advanced', (d) => d.advancedBySeconds === 25 * 3600);

    const obligations = await call(gw, platform, 'GET', '/enforcement/obligations');
    expect(obligations.status).toBe(200);
    expect(obligations.body.takedowns.map((t: { violation_id: string }) => t.violation_id)).toContain(
      violationId,
    );
  });
});
