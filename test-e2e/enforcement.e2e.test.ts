import {
  connectTestBroker,
  startTestCluster,
  uniqueSuffix,
  waitFor,
  type TestBroker,
  type TestCluster,
} from '@svc/test-kit';
import { unwrap, type RequestBody, type SvcClient } from '@svc/sdk';
import { expectStatus, newPlatformKey, refusal, ROOT, sdkFor } from './helpers';

// Enforcement through the gateway in cluster mode: registry, detection, licensing and enforcement
// are their own processes on PostgreSQL and RabbitMQ. A verified claim is boxed; detection indexes
// it; a platform's avatar breaks the box, is appealed, the appeal denied, the sandbox clock moved
// past the grace period: the violation is enforced, with every event on the bus. Calls go through
// @svc/sdk, the typed client generated from the OpenAPI document.
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

/** A new platform on the standard plan: the SDK's client with its key. */
async function newClient(name: string): Promise<SvcClient> {
  return sdkFor(cluster.gatewayUrl, await newPlatformKey(cluster, name));
}

function event(type: string, match: (data: any) => boolean) {
  return waitFor(() => broker.received.find((m) => m.routingKey === type && match(m.body.data))?.body, {
    what: `event ${type}`,
    timeoutMs: 20_000,
  });
}

describe('enforcement through the gateway (cluster mode)', () => {
  it('when an avatar breaks a box, is appealed and the appeal denied, then the moved sandbox clock enforces it', async () => {
    const owner = await newClient('Identity owner');
    const platform = await newClient('Avatar platform');
    const stranger = await newClient('Another platform');
    const name = `Octavia Quillfeather ${
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 5) || 'Q'
    }`;

    // An avatar reported before the box exists is found by the box's initial scan.
    const { data: early } = await expectStatus(
      201,
      platform.POST('/v1/svc/avatars', {
        body: { id: 'early-avatar', name, creatorId: 'creator-early', userCount: 150 },
      }),
    );
    expect(early.openViolations).toEqual([]);

    const { data: claim } = await expectStatus(
      201,
      owner.POST('/v1/svc/claims', {
        body: {
          name,
          entityType: 'INDIVIDUAL',
          referenceImages: [{ url: 'https://img.example.com/octavia.jpg' }],
        },
      }),
    );
    const claimId = claim.id;
    await expectStatus(
      200,
      owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: claimId } }, body: {} }),
    );
    const { data: box } = await expectStatus(
      201,
      owner.POST('/v1/svc/boxes', {
        body: {
          claimId,
          policy: 'LICENSE',
          policyConfig: { licenseTypes: { personal: { price: 9.99, autoApprove: false } } },
        },
      }),
    );
    const boxId = box.id;

    await event('detection.box.indexed', (d) => d.boxId === boxId && d.firstIndexed === true);
    const scan = await event('enforcement.box_scan.completed', (d) => d.boxId === boxId);
    expect(scan.data.violationsCreated).toBeGreaterThanOrEqual(1);
    const scanned = await unwrap(
      platform.GET('/v1/svc/avatars/{id}', { params: { path: { id: 'early-avatar' } } }),
    );
    expect(scanned.data.openViolations).toHaveLength(1);

    const { data: reported } = await expectStatus(
      201,
      platform.POST('/v1/svc/avatars', {
        body: {
          id: 'avatar-42',
          name,
          creatorId: 'creator-7',
          creatorEmail: 'creator7@example.com',
          userCount: 2500,
        },
      }),
    );
    expect(reported).toMatchObject({
      evaluation: 'completed',
      match: { boxId, outcome: 'violation' },
    });
    const violationId = reported.openViolations[0]!;
    const byViolation = { params: { path: { id: violationId } } };

    const { data: violation } = await expectStatus(200, platform.GET('/v1/svc/violations/{id}', byViolation));
    expect(violation).toMatchObject({
      status: 'pending',
      severity: 'high',
      boxId,
      identityName: name,
      gracePeriod: { status: 'active', daysRemaining: 30 },
    });
    expect(violation.resolutionOptions?.[0]).toMatchObject({
      type: 'license',
      pricing: { personal: 9.99 },
    });
    const gracePeriodId = violation.gracePeriod!.id;
    expect((await stranger.GET('/v1/svc/violations/{id}', byViolation)).response.status).toBe(404);
    await event('enforcement.grace_period.started', (d) => d.gracePeriodId === gracePeriodId);

    const { data: appeal } = await expectStatus(
      200,
      platform.POST('/v1/svc/violations/{id}/appeal', {
        ...byViolation,
        body: { reason: 'common_name', explanation: 'A different Octavia' },
      }),
    );
    expect(appeal.gracePeriod.status).toBe('paused');
    const appealId = appeal.appeal.id;
    await event('enforcement.grace_period.paused', (d) => d.appealId === appealId);

    const { data: denied } = await expectStatus(
      200,
      platform.POST('/v1/svc/test-helpers/appeals/{id}/decide', {
        params: { path: { id: appealId } },
        body: { outcome: 'denied' },
      }),
    );
    expect(denied).toMatchObject({
      status: 'denied',
      violation: { status: 'pending' },
      gracePeriod: { status: 'active' },
    });
    await event('enforcement.grace_period.resumed', (d) => d.appealId === appealId);

    const { data: moved } = await expectStatus(
      200,
      platform.POST('/v1/svc/test-helpers/advance-time', { body: { seconds: 25 * 3600 } }),
    );
    expect(moved.stepsFired).toBeGreaterThanOrEqual(5);

    const { data: enforced } = await unwrap(platform.GET('/v1/svc/violations/{id}', byViolation));
    expect(enforced).toMatchObject({
      status: 'enforced',
      gracePeriod: { status: 'expired', daysRemaining: 0 },
    });
    expect(enforced.notifications).toMatchObject({
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

    const obligations = await expectStatus(200, platform.GET('/enforcement/obligations'));
    expect(obligations.takedowns.map((t) => t.violation_id)).toContain(violationId);
  });

  it('when a platform tries to talk its way out of violations, then every resolution is checked; the box owner sees and contests one; a lapsed license re-opens enforcement', async () => {
    const owner = await newClient('Checked owner');
    const platform = await newClient('Reluctant platform');
    const operator = sdkFor(cluster.gatewayUrl, cluster.adminToken);
    const letters = () =>
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 6) || 'Q';
    const boxFor = async (name: string, settings: Omit<RequestBody<'/v1/svc/boxes', 'post'>, 'claimId'>) => {
      const { data: claim } = await unwrap(
        owner.POST('/v1/svc/claims', {
          body: {
            name,
            entityType: 'INDIVIDUAL',
            referenceImages: [{ url: 'https://img.example.com/someone.jpg' }],
          },
        }),
      );
      const claimId = claim.id;
      await unwrap(
        owner.POST('/v1/svc/test-helpers/claims/{id}/verify', {
          params: { path: { id: claimId } },
          body: {},
        }),
      );
      const { data: box } = await expectStatus(
        201,
        // The settings pair a policy with its configuration; the union on policy is the caller's to keep.
        owner.POST('/v1/svc/boxes', {
          body: { claimId, ...settings } as RequestBody<'/v1/svc/boxes', 'post'>,
        }),
      );
      const boxId = box.id;
      await event('detection.box.indexed', (d) => d.boxId === boxId);
      return { boxId, claimId };
    };
    const licensedName = `Perpetua Vantablack ${letters()}`;
    const strictName = `Ignatius Quarrel ${letters()}`;
    const licensed = await boxFor(licensedName, {
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 9.99, autoApprove: true } } },
    });
    await boxFor(strictName, { policy: 'BLOCK_ALL', enforcement: 'STRICT' });

    const report = async (
      id: string,
      name: string,
      extra: Partial<RequestBody<'/v1/svc/avatars', 'post'>> = {},
    ) => {
      const { data: avatar } = await unwrap(
        platform.POST('/v1/svc/avatars', {
          body: {
            id,
            name,
            creatorId: 'creator-9',
            creatorEmail: 'creator9@example.com',
            userCount: 300,
            ...extra,
          },
        }),
      );
      expect(avatar.openViolations).toHaveLength(1);
      return avatar.openViolations[0]!;
    };
    const violationId = await report('checked-1', licensedName);
    const resolve = (id: string, body: RequestBody<'/v1/svc/violations/{id}/resolve', 'post'>) =>
      platform.POST('/v1/svc/violations/{id}/resolve', { params: { path: { id } }, body });

    // The table, row by row: each refusal is a typed error of the closed set.
    const fakeLicense = await refusal(
      resolve(violationId, {
        resolution: 'licensed',
        avatarId: 'checked-1',
        licenseId: 'lic_doesnotexist00000000',
      }),
    );
    expect([fakeLicense.status, fakeLicense.code]).toEqual([409, 'INVALID_STATE']);
    expect(fakeLicense.message).toMatch(/licenses\/request/);
    const noLicense = await refusal(resolve(violationId, { resolution: 'licensed', avatarId: 'checked-1' }));
    expect([noLicense.status, noLicense.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(noLicense.fields[0]!.field).toBe('licenseId');
    const unchanged = await refusal(resolve(violationId, { resolution: 'modified', avatarId: 'checked-1' }));
    expect(unchanged.status).toBe(409);
    expect(unchanged.details).toMatchObject({ match: { boxId: licensed.boxId } });
    const strictViolation = await report('checked-strict', strictName, {
      description: 'A parody, obviously',
    });
    const parody = await refusal(
      resolve(strictViolation, { resolution: 'parody', avatarId: 'checked-strict' }),
    );
    expect(parody.status).toBe(409);
    expect(parody.message).toMatch(/no parody exception/);
    const { data: pending } = await unwrap(
      platform.GET('/v1/svc/violations/{id}', { params: { path: { id: violationId } } }),
    );
    const gracePeriodId = pending.gracePeriod!.id;
    expect(
      broker.received.some(
        (m) =>
          m.routingKey === 'enforcement.grace_period.resolved' && m.body.data.gracePeriodId === gracePeriodId,
      ),
    ).toBe(false);

    // removed takes the avatar down; the owner sees it without the creator's data, and contests it.
    await expectStatus(
      200,
      platform.POST('/v1/svc/grace-periods/{id}/resolve', {
        params: { path: { id: gracePeriodId } },
        body: { resolution: 'removed', avatarId: 'checked-1' },
      }),
    );
    const gone = await platform.GET('/v1/svc/avatars/{id}', { params: { path: { id: 'checked-1' } } });
    expect(gone.response.status).toBe(404);
    const byBox = { params: { path: { id: licensed.boxId } } };
    const seen = await expectStatus(200, owner.GET('/v1/svc/boxes/{id}/violations', byBox));
    expect(seen.data[0]).toMatchObject({
      id: violationId,
      status: 'resolved',
      avatar: { id: 'checked-1', status: 'removed' },
      resolution: { resolution: 'removed', resolvedBy: 'platform' },
    });
    expect(JSON.stringify(seen)).not.toContain('creator9@example.com');
    expect((await platform.GET('/v1/svc/boxes/{id}/violations', byBox)).response.status).toBe(404);
    let lastSeen: unknown;
    const stats = await waitFor(
      async () => {
        const res = await owner.GET('/v1/svc/boxes/{id}/stats', byBox);
        lastSeen = res.data?.data.violations ?? res.error;
        return res.data?.data.violations.resolutions.removed === 1 ? res.data.data : undefined;
      },
      { what: 'the resolution in the box statistics', timeoutMs: 20_000 },
    ).catch((err: Error) => {
      // What the owner saw, and which of the violation's events the bus carried: a miss says where.
      const carried = broker.received
        .filter((m) => m.body.data?.violationId === violationId)
        .map((m) => m.routingKey);
      throw new Error(
        `${err.message}; last seen ${JSON.stringify(lastSeen)}; on the bus: ${carried.join(', ')}`,
      );
    });
    expect(stats.violations.resolvedBy.platform).toBe(1);
    const { data: contest } = await expectStatus(
      200,
      owner.POST('/v1/svc/violations/{id}/contest', {
        params: { path: { id: violationId } },
        body: { explanation: 'Still online under the same name' },
      }),
    );
    const contestId = contest.contest.id;
    const { data: upheld } = await expectStatus(
      200,
      operator.POST('/admin/appeals/{id}/decide', {
        params: { path: { id: contestId } },
        body: { outcome: 'upheld' },
      }),
    );
    expect(upheld).toMatchObject({
      violation: { status: 'pending' },
      gracePeriod: { status: 'active' },
    });
    await event('enforcement.grace_period.resumed', (d) => d.appealId === contestId);

    // A license covers it; once the license is cancelled, the avatar breaks the box again.
    await waitFor(
      async () => {
        const res = await platform.GET('/licensing/terms/{identity_id}', {
          params: { path: { identity_id: licensed.claimId } },
        });
        return res.response.status === 200 ? res : undefined;
      },
      { what: 'the box in licensing', timeoutMs: 15_000 },
    );
    const { data: request } = await unwrap(
      platform.POST('/v1/svc/licenses/request', {
        body: { boxId: licensed.boxId, tier: 'personal', useCase: 'Chat avatar', acceptGuidelines: true },
      }),
    );
    expect(request.status).toBe('approved');
    const licenses = await unwrap(
      platform.GET('/v1/svc/licenses', { params: { query: { boxId: licensed.boxId } } }),
    );
    const licenseId = licenses.data[0]!.id;
    await event(
      'enforcement.violation.resolved',
      (d) => d.violationId === violationId && d.licenseId === licenseId,
    );
    const cancelled = await platform.DELETE('/v1/svc/licenses/{id}', {
      params: { path: { id: licenseId } },
      body: { reason: 'Too dear' },
    });
    expect(cancelled.response.status).toBe(200);
    const reopened = await waitFor(
      async () => {
        const res = await platform.GET('/v1/svc/avatars/{id}', { params: { path: { id: 'checked-1' } } });
        return res.data?.data.openViolations.length === 1 ? res.data.data : undefined;
      },
      { what: 'a new violation after the license lapsed', timeoutMs: 20_000 },
    );
    const fresh = reopened.openViolations[0]!;
    expect(fresh).not.toBe(violationId);
    await event('enforcement.grace_period.started', (d) => d.violationId === fresh);
  });
});
