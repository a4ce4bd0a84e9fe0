import { waitFor } from '@svc/test-kit';
import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

// Issue 20: the box owner's dashboard shows how far the box's initial scan has got. The internal
// route answers the owner only (another tenant's box is 404, docs/spec/contracts.md §6).

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

describe('GET /internal/boxes/:id/scan', () => {
  it('when the owner reads it, then it is waiting before the box is indexed, retrying while detection is down, then completed with what it found', async () => {
    const host = h.platform();
    await h.avatar(host, 'p1', 'Progress Scan Person');
    await h.avatar(host, 'p2', 'Someone Else Entirely');
    const box = await h.box('Progress Scan Person', 'BLOCK_ALL');
    const owner = h.owner(box);
    const path = `/internal/boxes/${box.boxId}/scan`;

    const waiting = await owner.call('GET', path);
    expect(waiting.status).toBe(200);
    expect(waiting.body.data).toMatchObject({ boxId: box.boxId, status: 'waiting', avatarsScanned: 0 });

    h.detection.down = true;
    await h.indexed(box);
    expect((await owner.call('GET', path)).body.data.status).toMatch(/^(in_progress|retrying)$/);
    // The scan worker is kicked by the indexing too: whichever pass runs, it fails and backs off.
    await h.running.runBoxScans();
    const retrying = await waitFor(
      async () => {
        const read = await owner.call('GET', path);
        return read.body.data.status === 'retrying' ? read : undefined;
      },
      { what: 'the scan retrying', timeoutMs: 10_000 },
    );
    expect(retrying.body.data).toMatchObject({ status: 'retrying', attempts: 1, completedAt: null });
    expect(retrying.body.data.nextAttemptAt).toEqual(expect.any(String));

    h.detection.down = false;
    h.clock.advance(10_000);
    await h.running.runBoxScans();
    const done = await waitFor(
      async () => {
        const read = await owner.call('GET', path);
        return read.body.data.status === 'completed' ? read : undefined;
      },
      { what: 'the scan completed', timeoutMs: 10_000 },
    );
    expect(done.body.data).toMatchObject({
      status: 'completed',
      avatarsScanned: 2,
      violationsFound: 1,
      nextAttemptAt: null,
    });
    expect(done.body.data.completedAt).toEqual(expect.any(String));
  });

  it('when another platform asks, or the box is unknown, then 404', async () => {
    const box = await h.box('Private Scan Person', 'BLOCK_ALL');
    await h.indexed(box);
    const other = h.platform();
    expect((await other.call('GET', `/internal/boxes/${box.boxId}/scan`)).status).toBe(404);
    const unknown = await h.owner(box).call('GET', '/internal/boxes/box_unknown0000000000000/scan');
    expect(unknown.status).toBe(404);
  });
});
