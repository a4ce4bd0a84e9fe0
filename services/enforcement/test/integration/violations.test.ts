import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

describe('GET /v1/svc/violations', () => {
  it('when listed, then newest first with the list form, filtered by status, boxId and severity', async () => {
    const ada = await h.box('Ada Lovelace', 'LICENSE');
    const alan = await h.box('Alan Turing', 'BLOCK_ALL');
    const client = h.platform();
    const first = await h.violation(client, ada, { userCount: 50 });
    h.clock.advance(1000);
    const second = await h.violation(client, alan, { userCount: 20_000 });
    const list = await client.call('GET', '/v1/svc/violations');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 2, limit: 20, offset: 0 });
    expect(list.body.data.map((v: { id: string }) => v.id)).toEqual([second.violationId, first.violationId]);
    const item = list.body.data[1];
    expect(item).toEqual({
      id: first.violationId,
      boxId: ada.boxId,
      identityName: 'Ada Lovelace',
      status: 'pending',
      severity: 'low',
      detectedAt: '2026-11-22T10:00:00.000Z',
      avatar: { id: first.avatarId, name: 'Ada Lovelace bot', creatorId: 'creator-1', userCount: 50 },
      detection: { confidence: 0.97, layer: 1, classification: 'EXACT_MATCH' },
      gracePeriod: { id: first.gracePeriodId, expiresAt: '2026-11-23T10:00:00.000Z', daysRemaining: 30 },
      notifications: {
        day0: { sent: true, at: '2026-11-22T10:00:00.000Z' },
        day7: { sent: false },
        day21: { sent: false },
        day28: { sent: false },
      },
    });
    const byBox = await client.call('GET', `/v1/svc/violations?boxId=${alan.boxId}`);
    expect(byBox.body.data.map((v: { id: string }) => v.id)).toEqual([second.violationId]);
    const bySeverity = await client.call('GET', '/v1/svc/violations?severity=critical');
    expect(bySeverity.body.data.map((v: { id: string }) => v.id)).toEqual([second.violationId]);
    expect((await client.call('GET', '/v1/svc/violations?status=resolved')).body.meta.total).toBe(0);
    expect((await h.platform().call('GET', '/v1/svc/violations')).body.meta.total).toBe(0);
  });

  it('when a query is invalid, then 400 VALIDATION_ERROR', async () => {
    const client = h.platform();
    for (const query of ['status=open', 'severity=huge', 'limit=101', 'offset=-1']) {
      const res = await client.call('GET', `/v1/svc/violations?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /v1/svc/violations/:id', () => {
  it('when read, then the detail form with policy, avatar details, detection details and resolution options with pricing', async () => {
    const box = await h.box('Marie Curie', 'LICENSE');
    const client = h.platform();
    const { violationId, avatarId, gracePeriodId } = await h.violation(client, box, {
      description: 'Physics tutor',
      imageUrl: 'https://cdn.example.com/curie.png',
      creatorName: 'Maker',
    });
    const res = await client.call('GET', `/v1/svc/violations/${violationId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: violationId,
      policy: 'LICENSE',
      avatar: {
        id: avatarId,
        description: 'Physics tutor',
        imageUrl: 'https://cdn.example.com/curie.png',
        creatorName: 'Maker',
        createdAt: '2026-11-22T10:00:00.000Z',
      },
      detection: { matchedVariations: ['Marie Curie'], imageMatchScore: null, parodyLikelihood: 0.05 },
      gracePeriod: { id: gracePeriodId, status: 'active', startedAt: '2026-11-22T10:00:00.000Z' },
    });
    expect(res.body.data.avatar).not.toHaveProperty('creatorEmail');
    expect(res.body.data.resolutionOptions).toEqual([
      expect.objectContaining({
        type: 'license',
        available: true,
        pricing: { personal: 9.99, creator: 49.99, commercial: 199 },
      }),
      expect.objectContaining({ type: 'remove', available: true }),
      expect.objectContaining({ type: 'modify', available: true }),
      expect.objectContaining({ type: 'appeal', available: true }),
    ]);
  });

  it('when another platform reads it, or it does not exist, then 404', async () => {
    const box = await h.box('Private Person', 'BLOCK_ALL');
    const { violationId } = await h.violation(h.platform(), box);
    const other = await h.platform().call('GET', `/v1/svc/violations/${violationId}`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    expect((await h.platform().call('GET', '/v1/svc/violations/viol_doesnotexist000000000')).status).toBe(
      404,
    );
  });
});

describe('POST /v1/svc/violations/:id/resolve', () => {
  it('when resolved with an active license of the platform on the box, then resolved with its grace period, and violation.resolved and grace_period.resolved are published', async () => {
    // TEAM: a license from the box owner does not keep the avatar from breaking the policy, but it
    // is the owner's consent, so the platform resolves the violation with it.
    const box = await h.box('Nikola Tesla', 'TEAM', {
      policyConfig: { authorizedAccounts: ['someone-else'] },
    });
    const client = h.platform();
    await h.license(client, box, 'active', 'lic_abcdefghijklmnop1234');
    const { violationId, avatarId, gracePeriodId } = await h.violation(client, box);
    h.clock.advance(3_600_000);
    const res = await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'licensed',
      avatarId,
      licenseId: 'lic_abcdefghijklmnop1234',
      notes: 'Bought one',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: violationId,
      status: 'resolved',
      resolution: 'licensed',
      resolvedAt: '2026-11-22T11:00:00.000Z',
      gracePeriod: { id: gracePeriodId, status: 'resolved' },
    });
    const resolved = await h.waitForEvent(
      'enforcement.violation.resolved',
      (e) => e.data.violationId === violationId,
    );
    expect(resolved.data).toMatchObject({ resolution: 'licensed', licenseId: 'lic_abcdefghijklmnop1234' });
    const gp = await h.waitForEvent(
      'enforcement.grace_period.resolved',
      (e) => e.data.gracePeriodId === gracePeriodId,
    );
    expect(gp.data).toMatchObject({
      status: 'resolved',
      resolution: 'licensed',
      remainingAvatars: 0,
      daysRemaining: 0,
    });
    const detail = await client.call('GET', `/v1/svc/violations/${violationId}`);
    expect(detail.body.data).toMatchObject({
      status: 'resolved',
      resolution: 'licensed',
      resolvedAt: '2026-11-22T11:00:00.000Z',
    });
    expect(detail.body.data.resolutionOptions.every((o: { available: boolean }) => !o.available)).toBe(true);

    const again = await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'removed',
      avatarId,
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('when the body is invalid or names another avatar, then 400; another platform gets 404', async () => {
    const box = await h.box('Rosalind Franklin', 'BLOCK_ALL');
    const client = h.platform();
    const { violationId, avatarId } = await h.violation(client, box);
    const bad = await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'bribed',
      avatarId,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('resolution');
    const missing = await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'removed',
    });
    expect(missing.body.error.details.fields[0].field).toBe('avatarId');
    const wrong = await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'removed',
      avatarId: 'other',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields[0].field).toBe('avatarId');
    const foreign = await h
      .platform()
      .call('POST', `/v1/svc/violations/${violationId}/resolve`, { resolution: 'removed', avatarId });
    expect(foreign.status).toBe(404);
    expect((await client.call('GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('pending');
  });
});

describe('POST /v1/svc/violations/:id/appeal', () => {
  it('when appealed, then appealed with a pending appeal, the grace period paused, and the events published', async () => {
    const box = await h.box('Ludwig Beethoven', 'LICENSE');
    const client = h.platform();
    const { violationId, gracePeriodId } = await h.violation(client, box);
    const res = await client.call('POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'common_name',
      explanation: 'Our avatar is a different Ludwig',
      evidence: ['https://example.com/proof'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: violationId,
      status: 'appealed',
      appeal: {
        reason: 'common_name',
        status: 'pending',
        submittedAt: '2026-11-22T10:00:00.000Z',
        estimatedReviewTime: '24-48 hours',
      },
      gracePeriod: { id: gracePeriodId, status: 'paused' },
    });
    expect(res.body.data.appeal.id).toMatch(/^appeal_[0-9A-Za-z]{16,}$/);
    await h.waitForEvent(
      'enforcement.violation.appealed',
      (e) => e.data.appealId === res.body.data.appeal.id,
    );
    await h.waitForEvent('enforcement.grace_period.paused', (e) => e.data.gracePeriodId === gracePeriodId);
    const appeal = await client.call('GET', `/v1/svc/appeals/${res.body.data.appeal.id}`);
    expect(appeal.body.data).toMatchObject({
      violationId,
      evidence: ['https://example.com/proof'],
      decidedAt: null,
    });
    expect((await h.platform().call('GET', `/v1/svc/appeals/${res.body.data.appeal.id}`)).status).toBe(404);

    const twice = await client.call('POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'other',
      explanation: 'again',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('INVALID_STATE');
  });

  it('when the body is invalid, then 400; a resolved violation cannot be appealed (409); another platform gets 404', async () => {
    const box = await h.box('Johann Bach', 'BLOCK_ALL');
    const client = h.platform();
    const { violationId, avatarId } = await h.violation(client, box);
    const bad = await client.call('POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'because',
      explanation: '',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'explanation',
      'reason',
    ]);
    expect(
      (
        await h
          .platform()
          .call('POST', `/v1/svc/violations/${violationId}/appeal`, { reason: 'other', explanation: 'x' })
      ).status,
    ).toBe(404);
    await client.call('POST', `/v1/svc/violations/${violationId}/resolve`, {
      resolution: 'removed',
      avatarId,
    });
    const late = await client.call('POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'other',
      explanation: 'x',
    });
    expect(late.status).toBe(409);
  });
});
