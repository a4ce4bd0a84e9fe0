import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

describe('GET /enforcement/obligations', () => {
  it('when a platform has enforced and running cases, then takedowns and grace periods, snake_case', async () => {
    const box = await h.box('Obliged Person', 'BLOCK_ALL');
    const client = h.platform();
    const enforced = await h.violation(client, box);
    const removed = await h.violation(client, box);
    await client.call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 25 * 3600 });
    await client.call('DELETE', `/v1/svc/avatars/${removed.avatarId}`);
    const running = await h.violation(client, box);
    const paused = await h.violation(client, box);
    await client.call('POST', `/v1/svc/violations/${paused.violationId}/appeal`, {
      reason: 'other',
      explanation: 'x',
    });

    const res = await client.call('GET', '/enforcement/obligations');
    expect(res.status).toBe(200);
    expect(res.body.takedowns).toEqual([
      {
        violation_id: enforced.violationId,
        avatar_id: enforced.avatarId,
        avatar_name: 'Obliged Person bot',
        creator_id: 'creator-1',
        box_id: box.boxId,
        identity_id: box.claimId,
        identity_name: 'Obliged Person',
        enforced_at: '2026-11-23T11:00:00.000Z',
      },
    ]);
    expect(
      res.body.grace_periods
        .map((g: { grace_period_id: string; status: string }) => [g.grace_period_id, g.status])
        .sort(),
    ).toEqual(
      [
        [running.gracePeriodId, 'active'],
        [paused.gracePeriodId, 'paused'],
      ].sort(),
    );
    expect(res.body.grace_periods[0]).toMatchObject({ days_remaining: 30, identity_id: box.claimId });
    expect(res.body.truncated).toBe(false);
    expect(await h.platform().call('GET', '/enforcement/obligations')).toMatchObject({
      status: 200,
      body: { takedowns: [], grace_periods: [], truncated: false },
    });
    expect((await h.raw('GET', '/enforcement/obligations')).status).toBe(401);
  });
});
