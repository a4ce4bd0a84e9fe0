import { waitFor } from '@svc/test-kit';
import { boxUpdated } from '@svc/contracts/registry';
import { BoxScanRepository } from '../../src/data-access/box-scan.repository';
import {
  startEnforcementHarness,
  type EnforcementHarness,
  type TestBox,
} from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

describe('registry.box.* (the box projection)', () => {
  it('when a box is deleted, then its active and paused grace periods are cancelled and grace_period.cancelled published', async () => {
    const box = await h.box('Deleted Box Person', 'LICENSE');
    const client = h.platform();
    const active = await h.violation(client, box);
    const paused = await h.violation(client, box);
    await client.call('POST', `/v1/svc/violations/${paused.violationId}/appeal`, {
      reason: 'other',
      explanation: 'x',
    });
    await h.deleteBox(box);
    for (const found of [active, paused]) {
      const gp = await client.call('GET', `/v1/svc/grace-periods/${found.gracePeriodId}`);
      expect(gp.body.data).toMatchObject({ status: 'cancelled', daysRemaining: 0 });
      expect((await client.call('GET', `/v1/svc/violations/${found.violationId}`)).body.data.status).toBe(
        'dismissed',
      );
      await h.waitForEvent(
        'enforcement.grace_period.cancelled',
        (e) => e.data.gracePeriodId === found.gracePeriodId,
      );
    }
    expect(h.eventsOf('enforcement.violation.dismissed')).toHaveLength(0);
    // Later avatars no longer match a deleted box.
    expect((await h.avatar(client, 'after-delete', 'Deleted Box Person')).openViolations).toEqual([]);
  });

  it("when a box's pricing changes, then the resolution options show the new prices", async () => {
    const box = await h.box('Priced Person', 'LICENSE');
    const client = h.platform();
    const { violationId } = await h.violation(client, box);
    await h.bus.publish(
      boxUpdated.create(
        {
          boxId: box.boxId,
          claimId: box.claimId,
          ownerPlatformId: box.ownerPlatformId,
          identityName: box.identityName,
          variations: [],
          entityType: 'INDIVIDUAL',
          verificationTier: 'SILVER',
          policy: 'LICENSE',
          enforcement: 'MODERATE',
          policyConfig: { licenseTypes: { personal: { price: 1, autoApprove: true } } },
          royaltyRate: 0,
          referenceImageUrls: [],
          status: 'active',
          createdAt: h.clock.now().toISOString(),
          updatedAt: new Date(h.clock.now().getTime() + 1000).toISOString(),
        },
        { occurredAt: h.clock.now(), platformId: box.ownerPlatformId },
      ),
    );
    const detail = await client.call('GET', `/v1/svc/violations/${violationId}`);
    expect(detail.body.data.resolutionOptions[0].pricing).toEqual({
      personal: 1,
      creator: null,
      commercial: null,
    });
  });
});

describe('licensing.license.* (the license projection)', () => {
  it("when the platform's license on the box becomes active, then its open violations there are resolved as licensed", async () => {
    const box = await h.box('Licensed Person', 'LICENSE');
    const client = h.platform();
    const bystander = h.platform();
    const mine = await h.violation(client, box);
    const theirs = await h.violation(bystander, box);
    const licenseId = await h.license(client, box);
    const detail = await client.call('GET', `/v1/svc/violations/${mine.violationId}`);
    expect(detail.body.data).toMatchObject({ status: 'resolved', resolution: 'licensed' });
    const event = await h.waitForEvent(
      'enforcement.violation.resolved',
      (e) => e.data.violationId === mine.violationId,
    );
    expect(event.data).toMatchObject({ resolution: 'licensed', licenseId });
    expect((await bystander.call('GET', `/v1/svc/violations/${theirs.violationId}`)).body.data.status).toBe(
      'pending',
    );
    // Its future avatars on the box do not break LICENSE.
    expect(await h.avatar(client, 'licensed-2', 'Licensed Person')).toMatchObject({
      openViolations: [],
      match: { outcome: 'licensed' },
    });
  });

  it('when the license expires, then new avatars break the policy again', async () => {
    const box = await h.box('Monetized Person', 'MONETIZE');
    const client = h.platform();
    const licenseId = await h.license(client, box);
    expect((await h.avatar(client, 'm1', 'Monetized Person')).openViolations).toEqual([]);
    await h.license(client, box, 'expired', licenseId);
    expect((await h.avatar(client, 'm2', 'Monetized Person')).openViolations).toHaveLength(1);
  });
});

describe('detection.box.indexed (the initial scan)', () => {
  /** Announces the box indexed again and waits for its new scan to complete (the worker may run it at once). */
  const scannedAgain = async (box: TestBox) => {
    const boxId = box.boxId;
    const before = await h.running.db.query<{ started_at: Date }>(
      'SELECT started_at FROM box_scans WHERE box_id = $1',
      [boxId],
    );
    h.clock.advance(1);
    await h.indexed(box, false);
    await waitFor(
      async () => {
        await h.running.runBoxScans();
        const now = await h.running.db.query<{ status: string; started_at: Date }>(
          'SELECT status, started_at FROM box_scans WHERE box_id = $1',
          [boxId],
        );
        const row = now.rows[0];
        const was = before.rows[0]?.started_at.getTime() ?? -1;
        return row !== undefined && row.status === 'completed' && row.started_at.getTime() > was;
      },
      { timeoutMs: 10_000, what: 'the box scanned again' },
    );
  };

  it('when a new box is scanned, then detection is asked only about the avatars whose match keys meet its name or that carry a picture, and every avatar is counted as scanned', async () => {
    const host = h.platform();
    await h.avatar(host, 'near', 'Keyed Scan Persn');
    await h.avatar(host, 'wrapped', 'KeyedScanPerson AI');
    await h.avatar(host, 'pictured', 'Someone Pictured', { imageUrl: 'https://img.example.test/a.png' });
    for (let i = 0; i < 12; i++) await h.avatar(host, `other${i}`, `Unrelated Creator ${i}`);
    const box = await h.box('Keyed Scan Person', 'BLOCK_ALL');
    await h.indexed(box);
    await h.running.runBoxScans();
    const completed = await h.waitForEvent(
      'enforcement.box_scan.completed',
      (e) => e.data.boxId === box.boxId,
    );
    expect(completed.data).toMatchObject({ avatarsScanned: 15 });
    expect(h.detection.keyRequests).toContain(box.boxId);
    const asked = h.detection.requests.filter((r) => r.boxId === box.boxId).flatMap((r) => r.refs);
    const names = await h.running.db.query<{ name: string }>('SELECT name FROM avatars WHERE ref = ANY($1)', [
      asked,
    ]);
    expect(names.rows.map((r) => r.name).sort()).toEqual([
      'Keyed Scan Persn',
      'KeyedScanPerson AI',
      'Someone Pictured',
    ]);
  });

  it('when detection keys names by other rules, or avatars have no keys yet, then those avatars are asked about, and the scan worker gives them keys', async () => {
    const host = h.platform();
    for (let i = 0; i < 5; i++) await h.avatar(host, `r${i}`, `Rules Creator ${i}`);
    h.detection.keyRules = 'older';
    const first = await h.box('Other Rules Person', 'BLOCK_ALL');
    await h.indexed(first);
    await h.running.runBoxScans();
    await h.waitForEvent('enforcement.box_scan.completed', (e) => e.data.boxId === first.boxId);
    const askedFirst = h.detection.requests.filter((r) => r.boxId === first.boxId).flatMap((r) => r.refs);
    expect(askedFirst).toHaveLength(5);

    // Written before match keys existed (or by a replica of the previous release).
    h.detection.keyRules = 'today';
    await h.running.db.query('UPDATE avatars SET match_keys = NULL, match_keys_version = NULL');
    const second = await h.box('Keyless Person', 'BLOCK_ALL');
    await h.indexed(second);
    await h.running.runBoxScans();
    await h.waitForEvent('enforcement.box_scan.completed', (e) => e.data.boxId === second.boxId);
    // The pass gave every avatar its keys before the scan read them: none could match.
    expect(h.detection.requests.filter((r) => r.boxId === second.boxId)).toHaveLength(0);
    const keyless = await h.running.db.query('SELECT ref FROM avatars WHERE match_keys_version IS NULL');
    expect(keyless.rows).toHaveLength(0);
  });

  it("when a new box is first indexed, then every platform's reported avatars are scanned for it and box_scan.completed published", async () => {
    const one = h.platform();
    const two = h.platform();
    await h.avatar(one, 'a', 'Late Box Person fan');
    await h.avatar(two, 'b', 'Late Box Person');
    await h.avatar(two, 'c', 'Unrelated');
    await h.avatar(two, 'gone', 'Late Box Person');
    await two.call('DELETE', '/v1/svc/avatars/gone');
    const box = await h.box('Late Box Person', 'BLOCK_ALL');
    await h.indexed(box);
    await h.running.runBoxScans();
    const completed = await h.waitForEvent(
      'enforcement.box_scan.completed',
      (e) => e.data.boxId === box.boxId,
    );
    expect(completed.data).toMatchObject({ avatarsScanned: 3, violationsCreated: 2 });
    expect(
      h.detection.requests.filter((r) => r.boxId === box.boxId).every((r) => r.caller === 'enforcement'),
    ).toBe(true);
    expect((await one.call('GET', `/v1/svc/violations?boxId=${box.boxId}`)).body.meta.total).toBe(1);
    expect((await two.call('GET', `/v1/svc/violations?boxId=${box.boxId}`)).body.meta.total).toBe(1);
    // The first indexing announced again does not scan again.
    await h.indexed(box);
    expect(await h.running.runBoxScans()).toBe(0);
    // A later indexing (the box changed) scans again; the violations already open stay as they are.
    await scannedAgain(box);
    expect((await one.call('GET', `/v1/svc/violations?boxId=${box.boxId}`)).body.meta.total).toBe(1);
    expect((await two.call('GET', `/v1/svc/violations?boxId=${box.boxId}`)).body.meta.total).toBe(1);
  });

  it('when a box tightens its policy and is indexed again, then avatars reported before the change that now break it become violations', async () => {
    const client = h.platform();
    const box = await h.box('Tightened Box Person', 'OPEN');
    await h.avatar(client, 'watched', 'Tightened Box Person');
    await h.indexed(box);
    await h.running.runBoxScans();
    expect((await client.call('GET', `/v1/svc/violations?boxId=${box.boxId}`)).body.meta.total).toBe(0);

    // Detection now answers with the box's new policy (registry.box.updated applied there).
    const known = h.detection.identities.find((i) => i.match.boxId === box.boxId);
    if (known === undefined) throw new Error('the box is not known to detection');
    known.match = { ...known.match, policy: 'BLOCK_ALL' };
    await scannedAgain(box);
    const after = await client.call('GET', `/v1/svc/violations?boxId=${box.boxId}`);
    expect(after.body.meta.total).toBe(1);
    expect(after.body.data[0]).toMatchObject({ status: 'pending', avatar: { id: 'watched' } });
  });

  it('when a box is indexed again while its scan is running, then the scan starts over and judges by the change', async () => {
    const client = h.platform();
    const box = await h.box('Restarted Scan Person', 'OPEN');
    await h.avatar(client, 'r1', 'Restarted Scan Person');
    await h.indexed(box);
    // The scan's page is answered under the old policy and held in flight.
    const held = h.detection.holdNextScan();
    const running = h.running.runBoxScans();
    await held.received;
    const known = h.detection.identities.find((i) => i.match.boxId === box.boxId);
    if (known === undefined) throw new Error('the box is not known to detection');
    known.match = { ...known.match, policy: 'BLOCK_ALL' };
    h.clock.advance(1);
    await h.indexed(box, false);
    held.release();
    // The superseded round writes no progress; the new one (run here, or by the worker the
    // announcement kicked) scans the avatar again under BLOCK_ALL.
    await running;
    await waitFor(
      async () => {
        await h.running.runBoxScans();
        const scans = await h.running.db.query<{ status: string }>(
          'SELECT status FROM box_scans WHERE box_id = $1',
          [box.boxId],
        );
        return scans.rows[0]?.status === 'completed';
      },
      { timeoutMs: 10_000, what: "the box's new scan completed" },
    );
    const violations = await client.call('GET', `/v1/svc/violations?boxId=${box.boxId}`);
    expect(violations.body.meta.total).toBe(1);
  });

  it('when a scan is restarted, then what a worker still holding the round before writes is refused', async () => {
    const scans = new BoxScanRepository();
    const db = h.running.db;
    const boxId = 'box_fencedScanRound0000';
    const at = h.clock.now();
    await db.transaction((tx) => scans.start(tx, boxId, at));
    const held = await db.transaction((tx) => scans.leaseDue(tx, at, new Date(at.getTime() + 30_000)));
    if (held === null || held.boxId !== boxId) throw new Error('the scan was not leased');
    // Restarted at the same instant: the round still moves forward.
    await db.transaction((tx) => scans.restart(tx, boxId, at));
    const late = {
      ...held,
      cursorSeq: 999,
      avatarsScanned: 5,
      status: 'completed' as const,
      completedAt: at,
    };
    expect(await db.transaction((tx) => scans.update(tx, late))).toBe(false);
    const now = await scans.find(db, boxId);
    expect(now).toMatchObject({ status: 'in_progress', cursorSeq: 0, avatarsScanned: 0, leaseUntil: null });
    expect(now?.startedAt.getTime()).toBeGreaterThan(held.startedAt.getTime());
    expect(await db.transaction((tx) => scans.update(tx, { ...late, startedAt: now!.startedAt }))).toBe(true);
  });

  it("when an avatar's evaluation asked before its box was indexed comes back after the box's scan, then it does not close the scan's violation", async () => {
    const client = h.platform();
    const held = h.detection.holdNextEvaluation();
    // Detection does not know the box yet: the evaluation of the new avatar finds nothing, late.
    const reporting = h.avatar(client, 'racer', 'Racing Box Person');
    await held.received;
    h.clock.advance(1000);
    const box = await h.box('Racing Box Person', 'BLOCK_ALL');
    await h.indexed(box);
    await h.running.runBoxScans();
    await h.waitForEvent('enforcement.box_scan.completed', (e) => e.data.boxId === box.boxId);
    const scanned = await client.call('GET', `/v1/svc/violations?boxId=${box.boxId}`);
    expect(scanned.body.data).toHaveLength(1);
    const violationId = scanned.body.data[0].id as string;

    held.release();
    await reporting;
    // The late "no match" is stale: it is asked again instead of resolving the violation.
    h.clock.advance(1000);
    await h.running.retryEvaluations();
    const after = await client.call('GET', `/v1/svc/violations?boxId=${box.boxId}`);
    expect(after.body.data.map((v: { id: string; status: string }) => [v.id, v.status])).toEqual([
      [violationId, 'pending'],
    ]);
    // The report's own kick of the evaluation worker may hold the avatar's lease: wait for it.
    const avatar = await waitFor(
      async () => {
        const read = await client.call('GET', '/v1/svc/avatars/racer');
        return read.body.data.evaluation === 'completed' ? read : undefined;
      },
      { what: 'the avatar asked again and completed', timeoutMs: 10_000 },
    );
    expect(avatar.body.data).toMatchObject({
      evaluation: 'completed',
      match: { boxId: box.boxId },
      openViolations: [violationId],
    });
  });

  it('when detection is down during the scan, then it is retried later and completes', async () => {
    const client = h.platform();
    await h.avatar(client, 'x', 'Flaky Scan Person');
    const box = await h.box('Flaky Scan Person', 'BLOCK_ALL');
    h.detection.down = true;
    await h.indexed(box);
    expect(await h.running.runBoxScans()).toBe(0);
    h.detection.down = false;
    expect(await h.running.runBoxScans()).toBe(0); // backing off
    h.clock.advance(10_000);
    await h.running.runBoxScans();
    const completed = await h.waitForEvent(
      'enforcement.box_scan.completed',
      (e) => e.data.boxId === box.boxId,
    );
    expect(completed.data).toMatchObject({ avatarsScanned: 1, violationsCreated: 1 });
  });
});
