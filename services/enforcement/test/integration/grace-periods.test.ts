import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

const HOUR = 3_600_000;

describe('GET /v1/svc/grace-periods', () => {
  it('when listed, then the list form with affected avatars and users, filtered by status, boxId and expiringWithin', async () => {
    const ada = await h.box('Ada Lovelace', 'LICENSE');
    const alan = await h.box('Alan Turing', 'BLOCK_ALL', { enforcement: 'RELAXED' });
    const client = h.platform();
    const first = await h.violation(client, ada, { userCount: 300 });
    h.clock.advance(1000);
    const second = await h.violation(client, alan, { userCount: 7 });
    const list = await client.call('GET', '/v1/svc/grace-periods');
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data[1]).toEqual({
      id: first.gracePeriodId,
      boxId: ada.boxId,
      violationId: first.violationId,
      identityName: 'Ada Lovelace',
      status: 'active',
      startedAt: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-11-23T10:00:00.000Z',
      daysRemaining: 30,
      affectedAvatars: 1,
      affectedUsers: 300,
    });
    // RELAXED: 36 sandbox hours.
    expect(list.body.data[0]).toMatchObject({
      id: second.gracePeriodId,
      expiresAt: '2026-11-23T22:00:01.000Z',
      daysRemaining: 45,
    });
    expect(list.body.data[0]).not.toHaveProperty('notifications');
    const byBox = await client.call('GET', `/v1/svc/grace-periods?boxId=${alan.boxId}`);
    expect(byBox.body.data.map((g: { id: string }) => g.id)).toEqual([second.gracePeriodId]);
    // Sandbox days are 48 minutes: the first expires in 30 of them, the second in 45.
    const soon = await client.call('GET', '/v1/svc/grace-periods?expiringWithin=30');
    expect(soon.body.data.map((g: { id: string }) => g.id)).toEqual([first.gracePeriodId]);
    expect((await client.call('GET', '/v1/svc/grace-periods?expiringWithin=29')).body.meta.total).toBe(0);
    expect((await client.call('GET', '/v1/svc/grace-periods?status=paused')).body.meta.total).toBe(0);
    expect((await client.call('GET', '/v1/svc/grace-periods?expiringWithin=soon')).status).toBe(400);
    expect((await client.call('GET', '/v1/svc/grace-periods?status=over')).status).toBe(400);
  });
});

describe('GET /v1/svc/grace-periods/:id', () => {
  it('when read, then the detail form with the affected avatars (personal data), notifications and options', async () => {
    const box = await h.box('Marie Curie', 'LICENSE');
    const client = h.platform();
    const { gracePeriodId, avatarId, violationId } = await h.violation(client, box, { userCount: 42 });
    const res = await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: gracePeriodId,
      boxId: box.boxId,
      violationId,
      identityName: 'Marie Curie',
      policy: 'LICENSE',
      status: 'active',
      startedAt: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-11-23T10:00:00.000Z',
      daysRemaining: 30,
      affectedAvatars: [
        {
          avatarId,
          name: 'Marie Curie bot',
          creatorId: 'creator-1',
          creatorEmail: 'creator@example.com',
          userCount: 42,
          status: 'active',
        },
      ],
      notifications: {
        day0: {
          sent: true,
          at: '2026-11-22T10:00:00.000Z',
          scheduledAt: '2026-11-22T10:00:00.000Z',
          recipients: ['creator@example.com'],
        },
        day7: { sent: false, scheduledAt: '2026-11-22T16:00:00.000Z' },
        day21: { sent: false, scheduledAt: '2026-11-23T04:00:00.000Z' },
        day28: { sent: false, scheduledAt: '2026-11-23T08:00:00.000Z' },
      },
      resolutionOptions: [
        { type: 'license', available: true, pricing: { personal: 9.99, creator: 49.99, commercial: 199 } },
        { type: 'remove', available: true },
        { type: 'modify', available: true },
        { type: 'appeal', available: true },
      ],
    });
    expect((await h.platform().call('GET', `/v1/svc/grace-periods/${gracePeriodId}`)).status).toBe(404);
  });
});

describe('POST /v1/svc/grace-periods/:id/resolve', () => {
  it('when resolved, then resolved with remainingAvatars 0, and the violation resolved too', async () => {
    const box = await h.box('Nikola Tesla', 'BLOCK_ALL');
    const client = h.platform();
    const { gracePeriodId, avatarId, violationId } = await h.violation(client, box);
    h.clock.advance(2 * HOUR);
    const res = await client.call('POST', `/v1/svc/grace-periods/${gracePeriodId}/resolve`, {
      resolution: 'removed',
      avatarId,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: gracePeriodId,
      status: 'resolved',
      resolution: 'removed',
      resolvedAt: '2026-11-22T12:00:00.000Z',
      remainingAvatars: 0,
    });
    expect((await client.call('GET', `/v1/svc/violations/${violationId}`)).body.data).toMatchObject({
      status: 'resolved',
      resolution: 'removed',
    });
    const again = await client.call('POST', `/v1/svc/grace-periods/${gracePeriodId}/resolve`, {
      resolution: 'removed',
      avatarId,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('when the body is invalid, then 400; another platform or an unknown id gets 404', async () => {
    const box = await h.box('Rosalind Franklin', 'BLOCK_ALL');
    const client = h.platform();
    const { gracePeriodId, avatarId } = await h.violation(client, box);
    expect(
      (await client.call('POST', `/v1/svc/grace-periods/${gracePeriodId}/resolve`, { avatarId })).status,
    ).toBe(400);
    expect(
      (
        await h
          .platform()
          .call('POST', `/v1/svc/grace-periods/${gracePeriodId}/resolve`, { resolution: 'removed', avatarId })
      ).status,
    ).toBe(404);
    expect(
      (
        await client.call('POST', '/v1/svc/grace-periods/gp_unknown000000000000000/resolve', {
          resolution: 'removed',
          avatarId,
        })
      ).status,
    ).toBe(404);
  });
});
