import {
  startEnforcementHarness,
  startReplica,
  type EnforcementHarness,
} from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

const HOUR = 3600;

describe('POST /v1/svc/test-helpers/advance-time', () => {
  it('when another replica’s scheduler runs all the while, then the answer still counts every step the move made due', async () => {
    // The scheduler of a replica reads each sandbox clock as committed: before the move and its
    // first batch committed together, it could fire the steps between the two, and the helper
    // answered stepsFired 0 (seen in CI, test-e2e/enforcement.e2e.test.ts).
    const replica = await startReplica(h);
    let running = true;
    const loop = async (fire: () => Promise<unknown>) => {
      while (running) await fire();
    };
    const scheduler = Promise.all([loop(() => replica.fireDueSteps()), loop(() => h.running.fireDueSteps())]);
    try {
      const box = await h.box('Grace Hopper', 'LICENSE');
      for (let i = 0; i < 20; i += 1) {
        const client = h.platform();
        const { violationId } = await h.violation(client, box);
        const moved = await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 25 * HOUR });
        expect(moved.body.data.stepsFired).toBe(5);
        const violation = await client.call('GET', `/v1/svc/violations/${violationId}`);
        expect(violation.body.data.status).toBe('enforced');
      }
    } finally {
      running = false;
      await scheduler;
      await replica.stop();
    }
  });

  it('when a sandbox platform moves its clock, then every due step fires in order with its events before the answer', async () => {
    const box = await h.box('Ada Lovelace', 'LICENSE');
    const client = h.platform();
    const { gracePeriodId, violationId } = await h.violation(client, box);
    const res = await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 7 * HOUR });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      now: '2026-11-22T17:00:00.000Z',
      advancedBySeconds: 7 * HOUR,
      stepsFired: 1,
    });
    const reminder = await h.waitForEvent(
      'enforcement.grace_period.reminder',
      (e) => e.data.gracePeriodId === gracePeriodId,
    );
    expect(reminder.data).toMatchObject({ reminderDay: 7, daysRemaining: 23, status: 'active' });
    expect(reminder.occurredAt).toBe('2026-11-22T17:00:00.000Z');
    const clock = await h.waitForEvent(
      'enforcement.clock.advanced',
      (e) => e.data.platformId === client.platformId,
    );
    expect(clock.data).toEqual({
      platformId: client.platformId,
      now: '2026-11-22T17:00:00.000Z',
      advancedBySeconds: 7 * HOUR,
    });
    const gp = await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`);
    expect(gp.body.data.daysRemaining).toBe(22);
    expect(gp.body.data.notifications.day7).toEqual({
      sent: true,
      at: '2026-11-22T17:00:00.000Z',
      scheduledAt: '2026-11-22T16:00:00.000Z',
      recipients: ['creator@example.com'],
    });

    const rest = await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 20 * HOUR });
    expect(rest.body.data.stepsFired).toBe(4);
    await h.waitForEvent('enforcement.violation.enforced', (e) => e.data.violationId === violationId);
    const own = h.delivered.filter(
      (e) => e.data.gracePeriodId === gracePeriodId || e.data.violationId === violationId,
    );
    expect(
      own.map((e) => e.type + (e.data.reminderDay === undefined ? '' : `:${e.data.reminderDay}`)),
    ).toEqual([
      'enforcement.violation.created',
      'enforcement.grace_period.started',
      'enforcement.grace_period.reminder:7',
      'enforcement.grace_period.reminder:21',
      'enforcement.grace_period.reminder:28',
      'enforcement.grace_period.ending',
      'enforcement.grace_period.expired',
      'enforcement.violation.enforced',
    ]);
    const ending = h.eventsOf(
      'enforcement.grace_period.ending',
      (e) => e.data.gracePeriodId === gracePeriodId,
    )[0];
    expect(ending?.data.daysRemaining).toBe(2);
    const violation = await client.call('GET', `/v1/svc/violations/${violationId}`);
    expect(violation.body.data).toMatchObject({
      status: 'enforced',
      gracePeriod: { status: 'expired', daysRemaining: 0 },
    });
    expect(violation.body.data.notifications).toMatchObject({ day21: { sent: true }, day28: { sent: true } });
    const again = await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'removed',
      avatarId: violation.body.data.avatar.id,
    });
    expect(again.status).toBe(409);
  });

  it("when one platform moves its clock, then another platform's grace periods are untouched", async () => {
    const box = await h.box('Alan Turing', 'BLOCK_ALL');
    const mover = h.platform();
    const bystander = h.platform();
    await h.violation(mover, box);
    const other = await h.violation(bystander, box);
    await mover.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 48 * HOUR });
    expect((await mover.call('GET', '/v1/svc/violations')).body.data[0].status).toBe('enforced');
    const untouched = await bystander.call('GET', `/v1/svc/violations/${other.violationId}`);
    expect(untouched.body.data).toMatchObject({ status: 'pending', gracePeriod: { daysRemaining: 30 } });
    // New activity of the mover happens on its own clock.
    const later = await h.violation(mover, box);
    expect((await mover.call('GET', `/v1/svc/violations/${later.violationId}`)).body.data.detectedAt).toBe(
      '2026-11-24T10:00:00.000Z',
    );
  });

  it('when the grace period is paused by an appeal, then time passing fires nothing until the denial, which adds the pause back', async () => {
    const box = await h.box('Grace Hopper', 'LICENSE');
    const client = h.platform();
    const { violationId, gracePeriodId } = await h.violation(client, box);
    const appeal = await client.call('POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'other',
      explanation: 'x',
    });
    const paused = await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 100 * HOUR });
    expect(paused.body.data.stepsFired).toBe(0);
    expect((await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`)).body.data).toMatchObject({
      status: 'paused',
      daysRemaining: 30,
    });
    await client.call('POST', `/v1/svc/test-helpers/appeals/${appeal.body.data.appeal.id}/decide`, {
      outcome: 'denied',
    });
    const gp = await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`);
    expect(gp.body.data).toMatchObject({
      status: 'active',
      daysRemaining: 30,
      expiresAt: '2026-11-27T14:00:00.000Z',
    });
    expect(
      (await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 6 * HOUR })).body.data
        .stepsFired,
    ).toBe(1);
    expect(
      (await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 18 * HOUR })).body.data
        .stepsFired,
    ).toBe(4);
    expect((await client.call('GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('enforced');
  });

  it('when the scheduler runs on real time (no test helper), then due steps fire once', async () => {
    const box = await h.box('Real Time', 'BLOCK_ALL');
    const client = h.platform();
    const { violationId } = await h.violation(client, box);
    expect((await h.running.fireDueSteps()).fired).toBe(0);
    h.clock.advance(24 * HOUR * 1000);
    expect(await h.running.fireDueSteps()).toEqual({ fired: 5, reminders: 3, endings: 1, expired: 1 });
    expect((await h.running.fireDueSteps()).fired).toBe(0);
    expect((await client.call('GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('enforced');
  });

  it('when the body is invalid, then 400; a live key gets 403; no token 401', async () => {
    const client = h.platform();
    for (const body of [{}, { seconds: 0 }, { seconds: 1.5 }, { seconds: 'soon' }]) {
      const res = await client.call('POST', '/v1/svc/test-helpers/advance-time', body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe('seconds');
    }
    const live = await h
      .platform({ environment: 'production' })
      .call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 60 });
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('FORBIDDEN');
    expect((await h.raw('POST', '/v1/svc/test-helpers/advance-time')).status).toBe(401);
  });

  it('when a platform reads its sandbox clock, then it reads real time until it advances, then its own time; others keep theirs; a live key gets 403', async () => {
    const mover = h.platform();
    const other = h.platform();
    const before = await mover.call('GET', '/v1/svc/test-helpers/clock');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({ now: h.clock.now().toISOString(), aheadBySeconds: 0 });
    const moved = await mover.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 26 * HOUR });
    h.clock.advance(90_000);
    const after = await mover.call('GET', '/v1/svc/test-helpers/clock');
    expect(after.body.data.aheadBySeconds).toBe(26 * HOUR);
    expect(after.body.data.now).toBe(new Date(Date.parse(moved.body.data.now) + 90_000).toISOString());
    expect((await other.call('GET', '/v1/svc/test-helpers/clock')).body.data).toEqual({
      now: h.clock.now().toISOString(),
      aheadBySeconds: 0,
    });
    const live = await h.platform({ environment: 'production' }).call('GET', '/v1/svc/test-helpers/clock');
    expect(live.status).toBe(403);
  });
});

describe('the production timeline', () => {
  let p: EnforcementHarness;
  beforeEach(async () => {
    p = await startEnforcementHarness({ environment: 'production' });
  });
  afterEach(async () => {
    await p.stop();
  });

  it('when a RELAXED box is breached in production, then 45 days, reminders on scaled days, fired by the scheduler', async () => {
    const box = await p.box('Relaxed Person', 'BLOCK_ALL', { enforcement: 'RELAXED' });
    const client = p.platform({ environment: 'production' });
    const { gracePeriodId } = await p.violation(client, box);
    const gp = await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`);
    expect(gp.body.data).toMatchObject({ daysRemaining: 45, expiresAt: '2027-01-06T10:00:00.000Z' });
    expect(gp.body.data.notifications.day7.scheduledAt).toBe('2026-12-02T22:00:00.000Z');
    p.clock.advance(10.5 * 86_400_000);
    expect((await p.running.fireDueSteps()).reminders).toBe(1);
    p.clock.advance(35 * 86_400_000);
    expect(await p.running.fireDueSteps()).toEqual({ fired: 4, reminders: 2, endings: 1, expired: 1 });
  });
});
