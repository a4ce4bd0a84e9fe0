import { waitFor } from '@svc/test-kit';
import {
  startEnforcementHarness,
  type Client,
  type EnforcementHarness,
} from '../fixtures/enforcement-harness';

// Issue 14: a license that lapses re-opens enforcement for the avatars it covered; a license
// resolves only the violations its tier covers.

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

/** The avatar once the evaluation worker (kicked by the lapse, or run here) opened its new violation. */
function reader(client: Client) {
  return (avatarId: string) =>
    waitFor(
      async () => {
        await h.running.retryEvaluations();
        const res = await client.call('GET', `/v1/svc/avatars/${avatarId}`);
        // The avatar and its violations are read one after the other: wait for both to show it.
        const data = res.body.data;
        return data.openViolations.length === 1 && data.evaluation === 'completed' ? res : undefined;
      },
      { what: `a new violation of ${avatarId}`, timeoutMs: 5000 },
    );
}
let evaluatedAgain: ReturnType<typeof reader>;

describe('a license that lapses', () => {
  it.each(['expired', 'revoked', 'cancelled'] as const)(
    'when %s, then the avatars it covered are evaluated again: a new violation with a new grace period and its events',
    async (status) => {
      const box = await h.box('Octavia Butler', 'LICENSE');
      const client = h.platform();
      evaluatedAgain = reader(client);
      const licenseId = await h.license(client, box, 'active');
      const covered = await h.avatar(client, 'covered', 'Octavia Butler bot');
      expect(covered).toMatchObject({ openViolations: [], match: { outcome: 'licensed' } });
      await h.avatar(client, 'unrelated', 'Someone Else');

      await h.license(client, box, status, licenseId);
      const avatar = await evaluatedAgain('covered');
      expect(avatar.body.data).toMatchObject({ evaluation: 'completed', match: { outcome: 'violation' } });
      const [violationId] = avatar.body.data.openViolations as string[];
      const violation = await client.call('GET', `/v1/svc/violations/${violationId}`);
      expect(violation.body.data).toMatchObject({
        status: 'pending',
        gracePeriod: { status: 'active', daysRemaining: 30 },
      });
      await h.waitForEvent('enforcement.violation.created', (e) => e.data.violationId === violationId);
      await h.waitForEvent(
        'enforcement.grace_period.started',
        (e) => e.data.violationId === violationId && e.platformId === client.platformId,
      );
    },
  );

  it('when a violation was resolved by the license and the license is cancelled, then a new violation opens; another active license of the platform keeps it covered', async () => {
    const box = await h.box('Hedy Lamarr', 'MONETIZE');
    const client = h.platform();
    evaluatedAgain = reader(client);
    const first = await h.violation(client, box);
    const licenseId = await h.license(client, box, 'active');
    const spare = await h.license(client, box, 'active');
    const resolved = await client.call('GET', `/v1/svc/violations/${first.violationId}`);
    expect(resolved.body.data.resolutionDetails).toMatchObject({
      resolution: 'licensed',
      resolvedBy: 'license',
      license: { id: licenseId, tier: 'personal' },
    });

    await h.license(client, box, 'cancelled', licenseId);
    // Evaluated again against the license that remains: still covered, no new violation.
    const stillCovered = await waitFor(
      async () => {
        await h.running.retryEvaluations();
        const res = await client.call('GET', `/v1/svc/avatars/${first.avatarId}`);
        return res.body.data.evaluation === 'completed' ? res : undefined;
      },
      { what: `the evaluation of ${first.avatarId}`, timeoutMs: 5000 },
    );
    expect(stillCovered.body.data.openViolations).toEqual([]);
    await h.license(client, box, 'cancelled', spare);
    const avatar = await evaluatedAgain(first.avatarId);
    expect(avatar.body.data.openViolations[0]).not.toBe(first.violationId);
    expect((await client.call('GET', `/v1/svc/violations/${first.violationId}`)).body.data.status).toBe(
      'resolved',
    );
  });
});

describe('a license that becomes active', () => {
  it('when its tier does not cover a commercial avatar, then that violation stays open; a commercial one resolves it', async () => {
    const box = await h.box('Ada Yonath', 'LICENSE');
    const client = h.platform();
    const commercial = await h.violation(client, box, { commercial: true });
    await h.license(client, box, 'active', undefined, 'creator');
    expect((await client.call('GET', `/v1/svc/violations/${commercial.violationId}`)).body.data.status).toBe(
      'pending',
    );
    const licenseId = await h.license(client, box, 'active', undefined, 'enterprise');
    const detail = await client.call('GET', `/v1/svc/violations/${commercial.violationId}`);
    expect(detail.body.data).toMatchObject({
      status: 'resolved',
      resolutionDetails: { resolvedBy: 'license', license: { id: licenseId, tier: 'enterprise' } },
    });
  });

  it('when the platform holds only a personal license, then a commercial avatar (flagged, or selling in its description) is a violation and a personal one is licensed', async () => {
    const box = await h.box('Rita Levi-Montalcini', 'LICENSE');
    const client = h.platform();
    await h.license(client, box, 'active', undefined, 'personal');
    const flagged = await h.violation(client, box, { commercial: true });
    expect(flagged.violationId).toMatch(/^viol_/);
    const selling = await h.violation(client, box, {
      description: 'Premium companion: subscribe for $9.99 a month',
    });
    expect(selling.violationId).toMatch(/^viol_/);
    const personal = await h.avatar(client, `avatar-${Date.now()}`, `${box.identityName} bot`, {
      description: 'A fan-made study companion, free for everyone',
    });
    expect(personal).toMatchObject({ evaluation: 'completed', openViolations: [] });
  });
});
