import type { InternalClient as Client } from '@svc/test-kit';
import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeAll(async () => {
  h = await startEnforcementHarness();
});
afterAll(async () => {
  await h.stop();
});

async function appealed(client: Client, name: string) {
  const box = await h.box(name, 'LICENSE');
  const found = await h.violation(client, box);
  const res = await client.call('POST', `/v1/svc/violations/${found.violationId}/appeal`, {
    reason: 'common_name',
    explanation: `Another ${name}`,
  });
  expect(res.status).toBe(200);
  h.clock.advance(60_000);
  return { ...found, appealId: res.body.data.appeal.id as string };
}

describe('GET /admin/appeals (operator queue)', () => {
  it('when two platforms appeal, then the operator sees both pending, oldest first, with the violation; a decided one leaves the queue', async () => {
    const first = h.platform();
    const second = h.platform();
    const a = await appealed(first, 'Frida Kahlo');
    const b = await appealed(second, 'Diego Rivera');

    const res = await h.operator().call('GET', '/admin/appeals');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 2, limit: 20, offset: 0 });
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([a.appealId, b.appealId]);
    expect(res.body.data[0]).toMatchObject({
      id: a.appealId,
      kind: 'appeal',
      status: 'pending',
      reason: 'common_name',
      explanation: 'Another Frida Kahlo',
      platformId: first.platformId,
      violation: {
        id: a.violationId,
        status: 'appealed',
        identityName: 'Frida Kahlo',
        avatar: { id: a.avatarId, name: 'Frida Kahlo bot' },
      },
    });

    const page = await h.operator().call('GET', '/admin/appeals?limit=1&offset=1');
    expect(page.body.meta).toEqual({ total: 2, limit: 1, offset: 1 });
    expect(page.body.data.map((x: { id: string }) => x.id)).toEqual([b.appealId]);

    await h.operator().call('POST', `/admin/appeals/${a.appealId}/decide`, { outcome: 'upheld' });
    const pending = await h.operator().call('GET', '/admin/appeals');
    expect(pending.body.data.map((x: { id: string }) => x.id)).toEqual([b.appealId]);
    const upheld = await h.operator().call('GET', '/admin/appeals?status=upheld');
    expect(upheld.body.data).toEqual([
      expect.objectContaining({
        id: a.appealId,
        violation: expect.objectContaining({ status: 'dismissed' }),
      }),
    ]);
  });

  it('when the status is not an appeal status, then 400 VALIDATION_ERROR', async () => {
    const res = await h.operator().call('GET', '/admin/appeals?status=open');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('when a platform (not the operator) asks, then 403 and no appeal is shown', async () => {
    const res = await h.platform().call('GET', '/admin/appeals');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(res.body.data).toBeUndefined();
  });
});
