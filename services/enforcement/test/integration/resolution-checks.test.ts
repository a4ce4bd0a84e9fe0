import type { JsonReply as Reply } from '@svc/test-kit';
import {
  startEnforcementHarness,
  type Client,
  type EnforcementHarness,
} from '../fixtures/enforcement-harness';

// Issue 14: a resolution is checked against the facts, on both resolve routes; a refusal is 409
// INVALID_STATE (400 for a missing field) saying what would resolve it, changes nothing and
// publishes nothing.

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

type Case = { violationId: string; avatarId: string; gracePeriodId: string };

const ROUTES = {
  violation: (c: Case) => `/v1/svc/violations/${c.violationId}/resolve`,
  'grace period': (c: Case) => `/v1/svc/grace-periods/${c.gracePeriodId}/resolve`,
};

async function expectUnresolved(client: Client, c: Case): Promise<void> {
  const detail = await client.call('GET', `/v1/svc/violations/${c.violationId}`);
  expect(detail.body.data).toMatchObject({ status: 'pending', gracePeriod: { status: 'active' } });
  expect(detail.body.data).not.toHaveProperty('resolutionDetails');
  expect(h.eventsOf('enforcement.violation.resolved', (e) => e.data.violationId === c.violationId)).toEqual(
    [],
  );
  expect(
    h.eventsOf('enforcement.grace_period.resolved', (e) => e.data.gracePeriodId === c.gracePeriodId),
  ).toEqual([]);
}

function expectRefused(res: Reply, says: RegExp): void {
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('INVALID_STATE');
  expect(res.body.error.message).toMatch(says);
}

describe.each(Object.entries(ROUTES))('resolving through the %s route', (_, path) => {
  it('when licensed names a license that does not exist, then 409 telling how to get one, and nothing changes', async () => {
    const box = await h.box('Ada Lovelace', 'LICENSE');
    const client = h.platform();
    const c = await h.violation(client, box);
    const res = await client.call('POST', path(c), {
      resolution: 'licensed',
      avatarId: c.avatarId,
      licenseId: 'lic_doesnotexist00000000',
    });
    expectRefused(res, /not a license of yours on box .*licenses\/request/);
    await expectUnresolved(client, c);
  });

  it('when licensed comes without a licenseId, then 400 VALIDATION_ERROR naming licenseId', async () => {
    const box = await h.box('Alan Turing', 'LICENSE');
    const client = h.platform();
    const c = await h.violation(client, box);
    const res = await client.call('POST', path(c), { resolution: 'licensed', avatarId: c.avatarId });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields).toEqual([
      { field: 'licenseId', message: 'required for resolution licensed' },
    ]);
    await expectUnresolved(client, c);
  });

  it('when removed, then the avatar is taken down (gone from the avatars) and re-reporting it opens a new violation', async () => {
    const box = await h.box('Grace Hopper', 'BLOCK_ALL');
    const client = h.platform();
    const c = await h.violation(client, box);
    const res = await client.call('POST', path(c), { resolution: 'removed', avatarId: c.avatarId });
    expect(res.status).toBe(200);
    expect((await client.call('GET', `/v1/svc/avatars/${c.avatarId}`)).status).toBe(404);
    expect((await client.call('GET', '/v1/svc/avatars')).body.meta.total).toBe(0);
    const detail = await client.call('GET', `/v1/svc/violations/${c.violationId}`);
    expect(detail.body.data.resolutionDetails).toMatchObject({
      resolution: 'removed',
      resolvedBy: 'platform',
      avatarChange: { removedAt: '2026-11-22T10:00:00.000Z' },
    });
    const again = await h.avatar(client, c.avatarId, 'Grace Hopper bot');
    expect(again.openViolations).toHaveLength(1);
    expect(again.openViolations[0]).not.toBe(c.violationId);
  });

  it('when modified but the avatar is unchanged, then 409 with the match in details', async () => {
    const box = await h.box('Nikola Tesla', 'LICENSE');
    const client = h.platform();
    const c = await h.violation(client, box);
    const res = await client.call('POST', path(c), { resolution: 'modified', avatarId: c.avatarId });
    expectRefused(res, /still matches box .*PATCH \/v1\/svc\/avatars/);
    expect(res.body.error.details).toMatchObject({
      resolution: 'modified',
      match: { boxId: box.boxId, identityName: 'Nikola Tesla', confidence: 0.97 },
    });
    await expectUnresolved(client, c);
  });

  it('when parody is claimed on a STRICT BLOCK_ALL box, then 409: no parody exception there', async () => {
    const box = await h.box('Marie Curie', 'BLOCK_ALL', { enforcement: 'STRICT' });
    const client = h.platform();
    const c = await h.violation(client, box, { description: 'A parody of a physicist' });
    const res = await client.call('POST', path(c), { resolution: 'parody', avatarId: c.avatarId });
    expectRefused(res, /admits no parody exception/);
    await expectUnresolved(client, c);
  });
});

describe('licensed', () => {
  it("when the license is another platform's, on another box, lapsed, or of a tier that does not cover a commercial avatar, then 409; a covering license resolves it with the license as evidence", async () => {
    const box = await h.box('Rosalind Franklin', 'TEAM', { policyConfig: { authorizedAccounts: [] } });
    const elsewhere = await h.box('Lise Meitner', 'LICENSE');
    const client = h.platform();
    const other = h.platform();
    const foreign = await h.license(other, box, 'active');
    const onOtherBox = await h.license(client, elsewhere, 'active');
    const lapsed = await h.license(client, box, 'expired');
    const personal = await h.license(client, box, 'active', undefined, 'personal');
    const commercial = await h.license(client, box, 'active', undefined, 'commercial');
    const c = await h.violation(client, box, { commercial: true });
    const resolve = (licenseId: string) =>
      client.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
        resolution: 'licensed',
        avatarId: c.avatarId,
        licenseId,
      });
    expectRefused(await resolve(foreign), /not a license of yours/);
    expectRefused(await resolve(onOtherBox), /not a license of yours/);
    expectRefused(await resolve(lapsed), /is expired, not active/);
    const tier = await resolve(personal);
    expectRefused(tier, /does not cover commercial use.*commercial or enterprise/);
    expect(tier.body.error.details).toMatchObject({ tier: 'personal' });
    await expectUnresolved(client, c);

    expect((await resolve(commercial)).status).toBe(200);
    const detail = await client.call('GET', `/v1/svc/violations/${c.violationId}`);
    expect(detail.body.data.resolutionDetails).toEqual({
      resolution: 'licensed',
      resolvedAt: '2026-11-22T10:00:00.000Z',
      resolvedBy: 'platform',
      notes: null,
      license: { id: commercial, tier: 'commercial' },
      avatarChange: null,
      reevaluation: null,
      contest: null,
    });
    const resolved = await h.waitForEvent(
      'enforcement.violation.resolved',
      (e) => e.data.violationId === c.violationId,
    );
    expect(resolved.data).toMatchObject({ resolution: 'licensed', licenseId: commercial });
  });

  it('when the box is BLOCK_ALL, then no license resolves it', async () => {
    const box = await h.box('Emmy Noether', 'BLOCK_ALL');
    const client = h.platform();
    const licenseId = await h.license(client, box, 'active', undefined, 'enterprise');
    const c = await h.violation(client, box);
    const res = await client.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
      resolution: 'licensed',
      avatarId: c.avatarId,
      licenseId,
    });
    expectRefused(res, /BLOCK_ALL: no license can cover/);
  });
});

describe('modified and parody', () => {
  it('when the avatar was changed (while detection was down) so it no longer matches, then modified resolves it with the change as evidence', async () => {
    const box = await h.box('Johann Bach', 'LICENSE');
    const client = h.platform();
    const c = await h.violation(client, box);
    h.detection.down = true;
    const patched = await client.call('PATCH', `/v1/svc/avatars/${c.avatarId}`, { name: 'Organ Robot' });
    expect(patched.body.data).toMatchObject({ evaluation: 'pending', openViolations: [c.violationId] });
    const unavailable = await client.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
      resolution: 'modified',
      avatarId: c.avatarId,
    });
    expect(unavailable.status).toBe(503);
    await expectUnresolved(client, c);
    h.detection.down = false;
    const res = await client.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
      resolution: 'modified',
      avatarId: c.avatarId,
    });
    expect(res.status).toBe(200);
    expect(h.detection.requests.at(-1)).toMatchObject({ boxId: box.boxId });
    const detail = await client.call('GET', `/v1/svc/violations/${c.violationId}`);
    expect(detail.body.data.resolutionDetails).toMatchObject({
      resolution: 'modified',
      resolvedBy: 'platform',
      avatarChange: {
        detected: { name: 'Johann Bach bot' },
        resolved: { name: 'Organ Robot' },
        removedAt: null,
      },
      reevaluation: { matched: false, confidence: null },
    });
  });

  it('when parody is claimed for an avatar not likely parody, then 409; once it carries a parody disclaimer, parody resolves it on a MODERATE box', async () => {
    const box = await h.box('Ludwig Beethoven', 'LICENSE');
    const client = h.platform();
    const c = await h.violation(client, box);
    const path = `/v1/svc/grace-periods/${c.gracePeriodId}/resolve`;
    const notParody = await client.call('POST', path, { resolution: 'parody', avatarId: c.avatarId });
    expectRefused(notParody, /not likely parody \(parodyLikelihood 0.05 < 0.7\)/);
    expect(notParody.body.error.details.match).toMatchObject({ parodyLikelihood: 0.05 });
    h.detection.down = true;
    await client.call('PATCH', `/v1/svc/avatars/${c.avatarId}`, { description: 'Parody account, not him' });
    h.detection.down = false;
    const res = await client.call('POST', path, { resolution: 'parody', avatarId: c.avatarId });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'resolved', resolution: 'parody' });
    await h.waitForEvent(
      'enforcement.grace_period.resolved',
      (e) => e.data.gracePeriodId === c.gracePeriodId,
    );
  });

  it('when parody is claimed on a STRICT box with any policy, then 409 even for a likely parody', async () => {
    const box = await h.box('Clara Schumann', 'LICENSE', { enforcement: 'STRICT' });
    const client = h.platform();
    const c = await h.violation(client, box, { description: 'Obvious satire' });
    const res = await client.call('POST', `/v1/svc/violations/${c.violationId}/resolve`, {
      resolution: 'parody',
      avatarId: c.avatarId,
    });
    expectRefused(res, /STRICT enforcement: it admits no parody exception/);
  });
});
