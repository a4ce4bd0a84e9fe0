import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

// Issue 14: the box owner sees how each violation of its box was resolved (without the hosting
// platform's personal data) and contests a resolution within the grace period through the
// appeal review; an upheld contest puts the violation back to pending with the time it had left.

const HOUR = 3_600_000;

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

describe('GET /v1/svc/boxes/:id/violations', () => {
  it("when the owner lists its box's violations, then every platform's, with the resolution and its evidence, and no creator data", async () => {
    const box = await h.box('Frida Kahlo', 'LICENSE');
    const owner = h.owner(box);
    // The host's name rides in the gateway's token; the other platform's token has none.
    const host = h.platform({ platformName: 'Casa Azul Avatars' });
    const other = h.platform();
    const removed = await h.violation(host, box, { creatorName: 'Maker', description: 'Painter' });
    h.clock.advance(1000);
    const open = await h.violation(other, box);
    await host.call('POST', `/v1/svc/violations/${removed.violationId}/resolve`, {
      resolution: 'removed',
      avatarId: removed.avatarId,
      notes: 'Taken down',
    });
    const res = await owner.call('GET', `/v1/svc/boxes/${box.boxId}/violations`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 2, limit: 20, offset: 0 });
    expect(res.body.data.map((v: { id: string }) => v.id)).toEqual([open.violationId, removed.violationId]);
    const item = res.body.data[1];
    expect(item).toMatchObject({
      id: removed.violationId,
      platformId: host.platformId,
      platformName: 'Casa Azul Avatars',
      status: 'resolved',
      avatar: { id: removed.avatarId, name: 'Frida Kahlo bot', description: 'Painter', status: 'removed' },
      gracePeriod: { status: 'resolved', expiresAt: '2026-11-23T10:00:00.000Z' },
      resolution: {
        resolution: 'removed',
        resolvedBy: 'platform',
        notes: 'Taken down',
        avatarChange: { removedAt: '2026-11-22T10:00:01.000Z' },
        contest: null,
      },
      contestableUntil: '2026-11-23T10:00:00.000Z',
    });
    const text = JSON.stringify(res.body);
    for (const personal of ['creator@example.com', 'creator-1', 'Maker'])
      expect(text).not.toContain(personal);
    expect(res.body.data[0]).toMatchObject({
      platformId: other.platformId,
      platformName: null,
      status: 'pending',
      resolution: null,
      contestableUntil: null,
    });
    const filtered = await owner.call('GET', `/v1/svc/boxes/${box.boxId}/violations?status=pending`);
    expect(filtered.body.data.map((v: { id: string }) => v.id)).toEqual([open.violationId]);
  });

  it('when another platform (the host included) asks, or the box is unknown, then 404', async () => {
    const box = await h.box('Diego Rivera', 'BLOCK_ALL');
    const host = h.platform();
    await h.violation(host, box);
    expect((await host.call('GET', `/v1/svc/boxes/${box.boxId}/violations`)).status).toBe(404);
    const unknown = await h.owner(box).call('GET', '/v1/svc/boxes/box_unknown0000000000000/violations');
    expect(unknown.status).toBe(404);
    expect((await h.owner(box).call('GET', `/v1/svc/boxes/${box.boxId}/violations?limit=0`)).status).toBe(
      400,
    );
  });
});

describe('POST /v1/svc/violations/:id/contest', () => {
  it('when the owner contests a resolution and the operator upholds it, then the violation is pending again with the time it had left, the avatar back, and the platform hears grace_period.resumed', async () => {
    const box = await h.box('Simone Weil', 'BLOCK_ALL');
    const owner = h.owner(box);
    const host = h.platform();
    const c = await h.violation(host, box);
    h.clock.advance(6 * HOUR);
    await host.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
      resolution: 'removed',
      avatarId: c.avatarId,
    });
    h.clock.advance(2 * HOUR);
    const contest = await owner.call('POST', `/v1/svc/violations/${c.violationId}/contest`, {
      explanation: 'The avatar is still online under the same name',
      evidence: ['https://example.com/screenshot.png'],
    });
    expect(contest.status).toBe(200);
    expect(contest.body.data).toMatchObject({
      id: c.violationId,
      status: 'resolved',
      contest: {
        status: 'pending',
        submittedAt: '2026-11-22T18:00:00.000Z',
        estimatedReviewTime: '24-48 hours',
      },
    });
    const contestId = contest.body.data.contest.id as string;
    const twice = await owner.call('POST', `/v1/svc/violations/${c.violationId}/contest`, {
      explanation: 'again',
    });
    expect(twice.status).toBe(409);
    expect((await owner.call('GET', `/v1/svc/appeals/${contestId}`)).body.data).toMatchObject({
      kind: 'contest',
      violationId: c.violationId,
      evidence: ['https://example.com/screenshot.png'],
    });

    h.clock.advance(HOUR);
    const decided = await h
      .operator()
      .call('POST', `/admin/appeals/${contestId}/decide`, { outcome: 'upheld' });
    expect(decided.status).toBe(200);
    // Resolved at hour 6 with 18 hours left; set aside at hour 9: expires at hour 27.
    expect(decided.body.data).toMatchObject({
      kind: 'contest',
      status: 'upheld',
      violation: { status: 'pending' },
      gracePeriod: { status: 'active', expiresAt: '2026-11-23T13:00:00.000Z' },
    });
    const detail = await host.call('GET', `/v1/svc/violations/${c.violationId}`);
    expect(detail.body.data).toMatchObject({ status: 'pending', gracePeriod: { status: 'active' } });
    expect(detail.body.data).not.toHaveProperty('resolution');
    expect((await host.call('GET', `/v1/svc/avatars/${c.avatarId}`)).status).toBe(200);
    await h.waitForEvent('enforcement.violation.reopened', (e) => e.data.appealId === contestId);
    await h.waitForEvent(
      'enforcement.grace_period.resumed',
      (e) => e.data.appealId === contestId && e.platformId === host.platformId,
    );
    // The timeline runs again from where it stood: the hour-18 reminder is now due at hour 21.
    h.clock.advance(11 * HOUR);
    await h.running.fireDueSteps();
    // The reminder leaves through the outbox relay, not with fireDueSteps: wait for it.
    await h.waitForEvent(
      'enforcement.grace_period.reminder',
      (e) => e.data.gracePeriodId === c.gracePeriodId && e.data.reminderDay === 7,
    );
    expect(
      h
        .eventsOf('enforcement.grace_period.reminder', (e) => e.data.gracePeriodId === c.gracePeriodId)
        .map((e) => e.data.reminderDay),
    ).toEqual([7]);
    h.clock.advance(HOUR);
    await h.running.fireDueSteps();
    // Its event leaves through the outbox relay: wait for it, then check nothing else came.
    await h.waitForEvent(
      'enforcement.grace_period.reminder',
      (e) => e.data.gracePeriodId === c.gracePeriodId && e.data.reminderDay === 21,
    );
    expect(
      h
        .eventsOf('enforcement.grace_period.reminder', (e) => e.data.gracePeriodId === c.gracePeriodId)
        .map((e) => e.data.reminderDay),
    ).toEqual([7, 21]);
  });

  it('when denied, then the resolution stands; a pending violation, a foreign caller, or the end of the grace period refuse a contest', async () => {
    const box = await h.box('Hannah Arendt', 'BLOCK_ALL');
    const owner = h.owner(box);
    const host = h.platform();
    const pending = await h.violation(host, box);
    expect(
      (await owner.call('POST', `/v1/svc/violations/${pending.violationId}/contest`, { explanation: 'x' }))
        .status,
    ).toBe(409);
    const c = await h.violation(host, box);
    await host.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
      resolution: 'removed',
      avatarId: c.avatarId,
    });
    for (const stranger of [host, h.platform()]) {
      const res = await stranger.call('POST', `/v1/svc/violations/${c.violationId}/contest`, {
        explanation: 'x',
      });
      expect(res.status).toBe(404);
    }
    expect((await owner.call('POST', `/v1/svc/violations/${c.violationId}/contest`, {})).status).toBe(400);
    const contest = await owner.call('POST', `/v1/svc/violations/${c.violationId}/contest`, {
      explanation: 'x',
    });
    const contestId = contest.body.data.contest.id as string;
    const denied = await h
      .operator()
      .call('POST', `/admin/appeals/${contestId}/decide`, { outcome: 'denied' });
    expect(denied.body.data).toMatchObject({ status: 'denied', violation: { status: 'resolved' } });
    const list = await owner.call('GET', `/v1/svc/boxes/${box.boxId}/violations?status=resolved`);
    expect(list.body.data[0].resolution.contest).toMatchObject({ id: contestId, status: 'denied' });

    h.clock.advance(25 * HOUR);
    const late = await owner.call('POST', `/v1/svc/violations/${c.violationId}/contest`, {
      explanation: 'x',
    });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/can no longer be contested/);
  });
});
