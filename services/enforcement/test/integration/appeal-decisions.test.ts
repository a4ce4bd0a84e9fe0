import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

const HOUR = 3_600_000;

async function appealed(client = h.platform()) {
  const box = await h.box('Frida Kahlo', 'LICENSE');
  const found = await h.violation(client, box);
  const res = await client.call('POST', `/v1/svc/violations/${found.violationId}/appeal`, {
    reason: 'parody',
    explanation: 'It is satire',
  });
  return { ...found, client, appealId: res.body.data.appeal.id as string };
}

describe('POST /admin/appeals/:id/decide (operator)', () => {
  it('when upheld, then the violation is dismissed and its grace period resolved', async () => {
    const { client, appealId, violationId, gracePeriodId } = await appealed();
    const res = await h
      .operator()
      .call('POST', `/admin/appeals/${appealId}/decide`, { outcome: 'upheld', notes: 'Clear satire' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: appealId,
      status: 'upheld',
      notes: 'Clear satire',
      violation: { id: violationId, status: 'dismissed' },
      gracePeriod: { id: gracePeriodId, status: 'resolved' },
    });
    await h.waitForEvent('enforcement.violation.dismissed', (e) => e.data.appealId === appealId);
    const gp = await h.waitForEvent(
      'enforcement.grace_period.resolved',
      (e) => e.data.gracePeriodId === gracePeriodId,
    );
    expect(gp.data.resolution).toBe('dismissed');
    expect((await client.call('GET', `/v1/svc/violations/${violationId}`)).body.data.appeal.status).toBe(
      'upheld',
    );
    const again = await h.operator().call('POST', `/admin/appeals/${appealId}/decide`, { outcome: 'denied' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('when denied, then the violation is pending and the grace period active again, with the paused time added back', async () => {
    const { client, appealId, violationId, gracePeriodId } = await appealed();
    h.clock.advance(5 * HOUR);
    const res = await h.operator().call('POST', `/admin/appeals/${appealId}/decide`, { outcome: 'denied' });
    expect(res.body.data).toMatchObject({
      status: 'denied',
      violation: { status: 'pending' },
      gracePeriod: { status: 'active', expiresAt: '2026-11-23T15:00:00.000Z' },
    });
    const resumed = await h.waitForEvent(
      'enforcement.grace_period.resumed',
      (e) => e.data.gracePeriodId === gracePeriodId,
    );
    expect(resumed.data).toMatchObject({
      appealId,
      daysRemaining: 30,
      expiresAt: '2026-11-23T15:00:00.000Z',
    });
    await h.waitForEvent('enforcement.violation.reopened', (e) => e.data.violationId === violationId);
    const gp = await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`);
    expect(gp.body.data.notifications.day7).toEqual({ sent: false, scheduledAt: '2026-11-22T21:00:00.000Z' });
  });

  it('when a platform (not the operator) calls it, then 403; an unknown appeal is 404; a bad outcome 400', async () => {
    const { client, appealId } = await appealed();
    expect(
      (await client.call('POST', `/admin/appeals/${appealId}/decide`, { outcome: 'upheld' })).status,
    ).toBe(403);
    expect(
      (
        await h
          .operator()
          .call('POST', '/admin/appeals/appeal_unknown00000000000000/decide', { outcome: 'upheld' })
      ).status,
    ).toBe(404);
    expect(
      (await h.operator().call('POST', `/admin/appeals/${appealId}/decide`, { outcome: 'maybe' })).status,
    ).toBe(400);
  });
});

describe('POST /v1/svc/test-helpers/appeals/:id/decide (sandbox)', () => {
  it('when a sandbox platform decides its own appeal, then it is decided like the reviewer would', async () => {
    const { client, appealId, violationId } = await appealed();
    const res = await client.call('POST', `/v1/svc/test-helpers/appeals/${appealId}/decide`, {
      outcome: 'upheld',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.violation).toEqual({ id: violationId, status: 'dismissed' });
  });

  it('when another platform decides it, then 404; a live key gets 403', async () => {
    const { appealId } = await appealed();
    expect(
      (
        await h
          .platform()
          .call('POST', `/v1/svc/test-helpers/appeals/${appealId}/decide`, { outcome: 'upheld' })
      ).status,
    ).toBe(404);
    const live = await appealed(h.platform({ environment: 'production' }));
    const res = await live.client.call('POST', `/v1/svc/test-helpers/appeals/${live.appealId}/decide`, {
      outcome: 'upheld',
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});
