import { refuseConnections, waitFor } from '@svc/test-kit';
import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeAll(async () => {
  h = await startEnforcementHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('POST /v1/svc/avatars', () => {
  it('when an avatar breaks a LICENSE box, then 201, a pending violation, an active grace period and the day-0 events', async () => {
    const box = await h.box('Ada Lovelace');
    const client = h.platform();
    const res = await client.call('POST', '/v1/svc/avatars', {
      id: 'ada-1',
      name: 'Ada Lovelace AI',
      creatorId: 'creator-9',
      creatorEmail: 'maker@example.com',
      userCount: 12_000,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: 'ada-1',
      evaluation: 'completed',
      creatorEmail: 'maker@example.com',
      commercial: false,
      match: { boxId: box.boxId, identityName: 'Ada Lovelace', policy: 'LICENSE', outcome: 'violation' },
    });
    const [violationId] = res.body.data.openViolations;
    const violation = await client.call('GET', `/v1/svc/violations/${violationId}`);
    expect(violation.body.data).toMatchObject({ status: 'pending', severity: 'critical', boxId: box.boxId });
    expect(violation.body.data.gracePeriod).toMatchObject({ status: 'active', daysRemaining: 30 });
    const created = await h.waitForEvent(
      'enforcement.violation.created',
      (e) => e.data.violationId === violationId,
    );
    expect(created.platformId).toBe(client.platformId);
    expect(created.data).toMatchObject({
      avatarId: 'ada-1',
      userCount: 12_000,
      severity: 'critical',
      claimId: box.claimId,
    });
    const started = await h.waitForEvent(
      'enforcement.grace_period.started',
      (e) => e.data.violationId === violationId,
    );
    expect(started.data).toMatchObject({
      status: 'active',
      daysRemaining: 30,
      avatarIds: ['ada-1'],
      startedAt: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-11-23T10:00:00.000Z',
    });
  });

  it('when the same id is posted again, then 200 and it is updated (and evaluated again)', async () => {
    await h.box('Grace Hopper', 'BLOCK_COMMERCIAL');
    const client = h.platform();
    const first = await client.call('POST', '/v1/svc/avatars', {
      id: 'gh',
      name: 'Grace Hopper',
      creatorId: 'c',
      userCount: 5,
    });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ openViolations: [], match: { outcome: 'allowed' } });
    const again = await client.call('POST', '/v1/svc/avatars', {
      id: 'gh',
      name: 'Grace Hopper',
      creatorId: 'c',
      userCount: 50,
      commercial: true,
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({
      userCount: 50,
      commercial: true,
      match: { outcome: 'violation' },
    });
    expect(again.body.data.openViolations).toHaveLength(1);
    const list = await client.call('GET', '/v1/svc/avatars');
    expect(list.body.meta.total).toBe(1);
  });

  it('when nothing matches, or the box is OPEN, then no violation', async () => {
    await h.box('Open Person', 'OPEN');
    const client = h.platform();
    expect((await h.avatar(client, 'x1', 'Nobody Known')).match).toBeNull();
    const open = await h.avatar(client, 'x2', 'Open Person fan');
    expect(open).toMatchObject({ openViolations: [], match: { outcome: 'monitored' } });
  });

  it('when the description makes parody likely on a MODERATE box, then no violation (parody)', async () => {
    await h.box('Parody Target', 'LICENSE');
    const client = h.platform();
    const avatar = await h.avatar(client, 'p1', 'Parody Target', { description: 'A parody of a celebrity' });
    expect(avatar).toMatchObject({ openViolations: [], match: { outcome: 'parody' } });
  });

  it('when TEAM and the platform domain is whitelisted, then no violation; another domain breaks it', async () => {
    await h.box('Team Member', 'TEAM', { policyConfig: { platformWhitelist: ['friends.example.com'] } });
    const friend = h.platform({ platformDomain: 'friends.example.com' });
    expect(await h.avatar(friend, 't1', 'Team Member')).toMatchObject({ match: { outcome: 'authorized' } });
    const stranger = h.platform({ platformDomain: 'strangers.example.com' });
    expect((await h.avatar(stranger, 't1', 'Team Member')).openViolations).toHaveLength(1);
  });

  it('when detection is down, then the avatar is stored pending and the retry job evaluates it later', async () => {
    const box = await h.box('Down Detected', 'BLOCK_ALL');
    const client = h.platform();
    h.detection.down = true;
    try {
      const res = await client.call('POST', '/v1/svc/avatars', {
        id: 'd1',
        name: 'Down Detected',
        creatorId: 'c',
        userCount: 1,
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ evaluation: 'pending', openViolations: [] });
      expect((await client.call('GET', '/v1/svc/avatars?evaluation=pending')).body.meta.total).toBe(1);
    } finally {
      h.detection.down = false;
    }
    expect(await h.running.retryEvaluations()).toBe(0); // not due yet: backoff
    h.clock.advance(60_000);
    expect(await h.running.retryEvaluations()).toBe(1);
    const avatar = await client.call('GET', '/v1/svc/avatars/d1');
    expect(avatar.body.data).toMatchObject({
      evaluation: 'completed',
      match: { boxId: box.boxId, outcome: 'violation' },
    });
    expect(avatar.body.data.openViolations).toHaveLength(1);
  });

  it('when the body is invalid, then 400 VALIDATION_ERROR naming each field', async () => {
    const client = h.platform();
    const res = await client.call('POST', '/v1/svc/avatars', { id: 'has space', name: '', userCount: -1 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(
      ['creatorId', 'id', 'name', 'userCount'].sort(),
    );
    const bad = await client.call('POST', '/v1/svc/avatars', {
      id: 'a',
      name: 'n',
      creatorId: 'c',
      userCount: 1,
      imageUrl: 'ftp://x/y.png',
      creatorEmail: 'nope',
    });
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'creatorEmail',
      'imageUrl',
    ]);
  });

  it('when the database goes away after the avatar is committed, then 201 with the avatar pending, a retry with its Idempotency-Key gets that answer again, and the worker opens the violation', async () => {
    const box = await h.box('Outage Person');
    const client = h.platform();
    const body = { id: 'outage-1', name: 'Outage Person AI', creatorId: 'c-1', userCount: 10 };
    const key = { 'Idempotency-Key': 'report-outage-1' };
    const held = h.detection.holdNextEvaluation();
    const reporting = client.call('POST', '/v1/svc/avatars', body, key);
    await held.received;
    // Committed, asked detection; the database goes before the answer can be applied.
    const outage = await refuseConnections(h.databaseUrl);
    let reply;
    try {
      held.release();
      reply = await reporting;
    } finally {
      await outage.reopen();
    }
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ id: 'outage-1', evaluation: 'pending', openViolations: [] });

    // The answer is recorded in the background once the database is back; until then: in progress.
    const retry = await waitFor(
      async () => {
        const again = await client.call('POST', '/v1/svc/avatars', body, key);
        return again.status === 409 && again.body.error.details.reason === 'in_progress' ? undefined : again;
      },
      { what: 'the retry to be answered', timeoutMs: 20_000 },
    );
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(reply.body);

    // The request held the avatar's evaluation lease while it asked detection: the worker takes
    // the avatar once that lease has run out.
    expect(await h.running.retryEvaluations()).toBe(0);
    h.clock.advance(15_000);
    expect(await h.running.retryEvaluations()).toBe(1);
    const after = await client.call('GET', '/v1/svc/avatars/outage-1');
    expect(after.body.data).toMatchObject({ evaluation: 'completed', match: { boxId: box.boxId } });
    expect(after.body.data.openViolations).toHaveLength(1);
  }, 45_000);

  it('when the evaluation worker runs while a report is asking detection about its avatar, then the worker leaves that avatar to the request and detection is asked once', async () => {
    const box = await h.box('Leased Person');
    const client = h.platform();
    const from = h.detection.requests.length;
    const held = h.detection.holdNextEvaluation();
    const reporting = client.call('POST', '/v1/svc/avatars', {
      id: 'leased-1',
      name: 'Leased Person AI',
      creatorId: 'c-1',
      userCount: 10,
    });
    await held.received;
    expect(await h.running.retryEvaluations()).toBe(0);
    held.release();
    const reply = await reporting;
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ evaluation: 'completed', match: { boxId: box.boxId } });
    expect(reply.body.data.openViolations).toHaveLength(1);
    const asked = h.detection.requests.slice(from).filter((r) => r.boxId === undefined);
    expect(asked).toHaveLength(1);
  });

  it("when the evaluation worker's pass dies half-way (the database went away), then its avatars are tried again 15 s later, not a minute", async () => {
    const box = await h.box('Halfway Person');
    const client = h.platform();
    h.detection.down = true;
    try {
      await h.avatar(client, 'halfway-1', 'Halfway Person AI');
    } finally {
      h.detection.down = false;
    }
    h.clock.advance(60_000); // past the first backoff: due
    const held = h.detection.holdNextEvaluation();
    const pass = h.running.retryEvaluations();
    await held.received;
    const outage = await refuseConnections(h.databaseUrl);
    try {
      held.release();
      await expect(pass).rejects.toThrow();
    } finally {
      await outage.reopen();
    }
    h.clock.advance(14_000);
    expect(await h.running.retryEvaluations()).toBe(0); // still held by the dead pass's lease
    h.clock.advance(1_000);
    expect(await h.running.retryEvaluations()).toBe(1);
    const avatar = await client.call('GET', '/v1/svc/avatars/halfway-1');
    expect(avatar.body.data).toMatchObject({ evaluation: 'completed', match: { boxId: box.boxId } });
    expect(avatar.body.data.openViolations).toHaveLength(1);
  }, 45_000);

  it('when there is no internal token or a bad one, then 401', async () => {
    expect((await h.raw('POST', '/v1/svc/avatars')).status).toBe(401);
    expect((await h.raw('GET', '/v1/svc/avatars', { token: 'not-a-token' })).status).toBe(401);
  });
});

describe('GET, PATCH and DELETE /v1/svc/avatars/:id', () => {
  it('when listed, then newest first without personal data; the detail has creatorEmail', async () => {
    const client = h.platform();
    await h.avatar(client, 'l1', 'Someone One');
    h.clock.advance(1000);
    await h.avatar(client, 'l2', 'Someone Two');
    const list = await client.call('GET', '/v1/svc/avatars?limit=1');
    expect(list.body).toMatchObject({ meta: { total: 2, limit: 1, offset: 0 } });
    expect(list.body.data[0].id).toBe('l2');
    expect(list.body.data[0]).not.toHaveProperty('creatorEmail');
    expect((await client.call('GET', '/v1/svc/avatars/l1')).body.data.creatorEmail).toBe(
      'creator@example.com',
    );
    expect((await client.call('GET', '/v1/svc/avatars?limit=0')).status).toBe(400);
  });

  it('when another platform asks for, changes or deletes an avatar, then 404', async () => {
    const owner = h.platform();
    await h.avatar(owner, 'mine', 'Private Avatar');
    const other = h.platform();
    expect((await other.call('GET', '/v1/svc/avatars/mine')).status).toBe(404);
    expect((await other.call('PATCH', '/v1/svc/avatars/mine', { userCount: 1 })).status).toBe(404);
    expect((await other.call('DELETE', '/v1/svc/avatars/mine')).status).toBe(404);
    expect((await owner.call('GET', '/v1/svc/avatars/mine')).status).toBe(200);
  });

  it('when an avatar is modified so it no longer matches, then its violation is resolved as modified', async () => {
    const box = await h.box('Changing Name', 'BLOCK_ALL');
    const client = h.platform();
    const { violationId, avatarId } = await h.violation(client, box);
    const patched = await client.call('PATCH', `/v1/svc/avatars/${avatarId}`, {
      name: 'Someone Else Entirely',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ openViolations: [], match: null });
    const violation = await client.call('GET', `/v1/svc/violations/${violationId}`);
    expect(violation.body.data).toMatchObject({ status: 'resolved', resolution: 'modified' });
    expect((await client.call('PATCH', `/v1/svc/avatars/${avatarId}`, {})).status).toBe(400);
  });

  it('when an avatar is deleted, then its open violation is resolved as removed and it is gone', async () => {
    const box = await h.box('Deleted Avatar Person', 'BLOCK_ALL');
    const client = h.platform();
    const { violationId, avatarId, gracePeriodId } = await h.violation(client, box);
    const res = await client.call('DELETE', `/v1/svc/avatars/${avatarId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: avatarId, deleted: true, resolvedViolations: [violationId] });
    expect((await client.call('GET', `/v1/svc/avatars/${avatarId}`)).status).toBe(404);
    expect((await client.call('DELETE', `/v1/svc/avatars/${avatarId}`)).status).toBe(404);
    const gp = await client.call('GET', `/v1/svc/grace-periods/${gracePeriodId}`);
    expect(gp.body.data).toMatchObject({ status: 'resolved', resolution: 'removed' });
    expect(gp.body.data.affectedAvatars[0].status).toBe('removed');
    await h.waitForEvent('enforcement.grace_period.resolved', (e) => e.data.gracePeriodId === gracePeriodId);
  });
});
