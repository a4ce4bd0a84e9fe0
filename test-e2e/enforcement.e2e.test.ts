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

  it('when a platform tries to talk its way out of violations, then every resolution is checked; the box owner sees and contests one; a lapsed license re-opens enforcement', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newKey('Checked owner');
    const platform = await newKey('Reluctant platform');
    const letters = () =>
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 6) || 'Q';
    const boxFor = async (name: string, policy: string, extra: Record<string, unknown> = {}) => {
      const claim = await call(gw, owner, 'POST', '/v1/svc/claims', {
        name,
        entityType: 'INDIVIDUAL',
        referenceImages: [{ url: 'https://img.example.com/someone.jpg' }],
      });
      const claimId = claim.body.data.id as string;
      await call(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {});
      const box = await call(gw, owner, 'POST', '/v1/svc/boxes', { claimId, policy, ...extra });
      expect(box.status).toBe(201);
      const boxId = box.body.data.id as string;
      await event('detection.box.indexed', (d) => d.boxId === boxId);
      return { boxId, claimId };
    };
    const licensedName = `Perpetua Vantablack ${letters()}`;
    const strictName = `Ignatius Quarrel ${letters()}`;
    const licensed = await boxFor(licensedName, 'LICENSE', {
      policyConfig: { licenseTypes: { personal: { price: 9.99, autoApprove: true } } },
    });
    await boxFor(strictName, 'BLOCK_ALL', { enforcement: 'STRICT' });

    const report = async (id: string, name: string, extra: Record<string, unknown> = {}) => {
      const res = await call(gw, platform, 'POST', '/v1/svc/avatars', {
        id,
        name,
        creatorId: 'creator-9',
        creatorEmail: 'creator9@example.com',
        userCount: 300,
        ...extra,
      });
      expect(res.body.data.openViolations).toHaveLength(1);
      return res.body.data.openViolations[0] as string;
    };
    const violationId = await report('checked-1', licensedName);
    const resolve = (id: string, body: Record<string, unknown>) =>
      call(gw, platform, 'POST', `/v1/svc/violations/${id}/resolve`, body);

    // The table, row by row.
    const fakeLicense = await resolve(violationId, {
      resolution: 'licensed',
      avatarId: 'checked-1',
      licenseId: 'lic_doesnotexist00000000',
    });
    expect(fakeLicense.status).toBe(409);
    expect(fakeLicense.body.error).toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/licenses\/request/),
    });
    const noLicense = await resolve(violationId, { resolution: 'licensed', avatarId: 'checked-1' });
    expect(noLicense.status).toBe(400);
    expect(noLicense.body.error.details.fields[0].field).toBe('licenseId');
    const unchanged = await resolve(violationId, { resolution: 'modified', avatarId: 'checked-1' });
    expect(unchanged.status).toBe(409);
    expect(unchanged.body.error.details.match).toMatchObject({ boxId: licensed.boxId });
    const strictViolation = await report('checked-strict', strictName, {
      description: 'A parody, obviously',
    });
    const parody = await call(gw, platform, 'POST', `/v1/svc/violations/${strictViolation}/resolve`, {
      resolution: 'parody',
      avatarId: 'checked-strict',
    });
    expect(parody.status).toBe(409);
    expect(parody.body.error.message).toMatch(/no parody exception/);
    const gracePeriodId = (await call(gw, platform, 'GET', `/v1/svc/violations/${violationId}`)).body.data
      .gracePeriod.id as string;
    expect(
      broker.received.some(
        (m) =>
          m.routingKey === 'enforcement.grace_period.resolved' && m.body.data.gracePeriodId === gracePeriodId,
      ),
    ).toBe(false);

    // removed takes the avatar down; the owner sees it without the creator's data, and contests it.
    const removed = await call(gw, platform, 'POST', `/v1/svc/grace-periods/${gracePeriodId}/resolve`, {
      resolution: 'removed',
      avatarId: 'checked-1',
    });
    expect(removed.status).toBe(200);
    expect((await call(gw, platform, 'GET', '/v1/svc/avatars/checked-1')).status).toBe(404);
    const seen = await call(gw, owner, 'GET', `/v1/svc/boxes/${licensed.boxId}/violations`);
    expect(seen.status).toBe(200);
    expect(seen.body.data[0]).toMatchObject({
      id: violationId,
      status: 'resolved',
      avatar: { id: 'checked-1', status: 'removed' },
      resolution: { resolution: 'removed', resolvedBy: 'platform' },
    });
    expect(JSON.stringify(seen.body)).not.toContain('creator9@example.com');
    expect((await call(gw, platform, 'GET', `/v1/svc/boxes/${licensed.boxId}/violations`)).status).toBe(404);
    const stats = await waitFor(
      async () => {
        const res = await call(gw, owner, 'GET', `/v1/svc/boxes/${licensed.boxId}/stats`);
        return res.body.data?.violations.resolutions.removed === 1 ? res : undefined;
      },
      { what: 'the resolution in the box statistics', timeoutMs: 20_000 },
    );
    expect(stats.body.data.violations.resolvedBy.platform).toBe(1);
    const contest = await call(gw, owner, 'POST', `/v1/svc/violations/${violationId}/contest`, {
      explanation: 'Still online under the same name',
    });
    expect(contest.status).toBe(200);
    const contestId = contest.body.data.contest.id as string;
    const upheld = await call(gw, cluster.adminToken, 'POST', `/admin/appeals/${contestId}/decide`, {
      outcome: 'upheld',
    });
    expect(upheld.status).toBe(200);
    expect(upheld.body.data).toMatchObject({
      violation: { status: 'pending' },
      gracePeriod: { status: 'active' },
    });
    await event('enforcement.grace_period.resumed', (d) => d.appealId === contestId);

    // A license covers it; once the license is cancelled, the avatar breaks the box again.
    await waitFor(
      async () => {
        const res = await call(gw, platform, 'GET', `/licensing/terms/${licensed.claimId}`);
        return res.status === 200 ? res : undefined;
      },
      { what: 'the box in licensing', timeoutMs: 15_000 },
    );
    const request = await call(gw, platform, 'POST', '/v1/svc/licenses/request', {
      boxId: licensed.boxId,
      tier: 'personal',
      useCase: 'Chat avatar',
      acceptGuidelines: true,
    });
    expect(request.body.data.status).toBe('approved');
    const licenses = await call(gw, platform, 'GET', `/v1/svc/licenses?boxId=${licensed.boxId}`);
    const licenseId = licenses.body.data[0].id as string;
    await event(
      'enforcement.violation.resolved',
      (d) => d.violationId === violationId && d.licenseId === licenseId,
    );
    expect(
      (await call(gw, platform, 'DELETE', `/v1/svc/licenses/${licenseId}`, { reason: 'Too dear' })).status,
    ).toBe(200);
    const reopened = await waitFor(
      async () => {
        const res = await call(gw, platform, 'GET', '/v1/svc/avatars/checked-1');
        return res.body.data?.openViolations.length === 1 ? res : undefined;
      },
      { what: 'a new violation after the license lapsed', timeoutMs: 20_000 },
    );
    const fresh = reopened.body.data.openViolations[0] as string;
    expect(fresh).not.toBe(violationId);
    await event('enforcement.grace_period.started', (d) => d.violationId === fresh);
  });
});
