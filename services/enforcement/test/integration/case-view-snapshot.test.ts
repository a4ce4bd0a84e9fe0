import { SandboxClockRepository } from '@svc/clock';
import { newId } from '@svc/ids';
import type { Queryable } from '@svc/ports';
import { AppealRepository } from '../../src/data-access/appeal.repository';
import { AvatarRepository } from '../../src/data-access/avatar.repository';
import { GracePeriodRepository } from '../../src/data-access/grace-period.repository';
import { BoxRepository } from '../../src/data-access/projection.repository';
import { TimelineRepository } from '../../src/data-access/timeline.repository';
import { ViolationRepository } from '../../src/data-access/violation.repository';
import type { Caller } from '../../src/domain/ports';
import {
  getGracePeriod,
  getViolation,
  listBoxViolations,
  listViolations,
} from '../../src/domain/query-enforcement.use-case';
import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

let h: EnforcementHarness;
beforeEach(async () => {
  h = await startEnforcementHarness();
});
afterEach(async () => {
  await h.stop();
});

/**
 * The stores a case view reads, except that the avatars' read (taken after the violation was
 * read) first lets `meanwhile` commit through the service's own API, on another session.
 */
function contextWithWriteBetweenReads(meanwhile: () => Promise<void>) {
  let pending: (() => Promise<void>) | undefined = meanwhile;
  class AvatarsAfterAWrite extends AvatarRepository {
    override async findManyByRef(q: Queryable, refs: string[]) {
      const write = pending;
      pending = undefined;
      await write?.();
      return super.findManyByRef(q, refs);
    }
  }
  return {
    db: h.running.db,
    avatars: new AvatarsAfterAWrite(),
    violations: new ViolationRepository(),
    gracePeriods: new GracePeriodRepository(),
    timeline: new TimelineRepository(),
    appeals: new AppealRepository(),
    boxes: new BoxRepository(),
    clocks: new SandboxClockRepository(),
    clock: h.clock,
    environment: 'sandbox' as const,
  };
}

function callerOf(platformId: string): Caller {
  return { platformId, environment: 'sandbox', platformDomain: null, role: 'platform' };
}

describe('a case view assembled from several reads', () => {
  it('when an appeal commits between its reads, then the view shows the violation as it was read, without the appeal', async () => {
    const platformId = newId('plat');
    const client = h.platform({ platformId });
    const box = await h.box('Frida Kahlo', 'LICENSE');
    const found = await h.violation(client, box);
    const appeal = async () => {
      const res = await client.call('POST', `/v1/svc/violations/${found.violationId}/appeal`, {
        reason: 'parody',
        explanation: 'It is satire',
      });
      expect(res.status).toBe(200);
    };

    const view = await getViolation(
      contextWithWriteBetweenReads(appeal),
      callerOf(platformId),
      found.violationId,
    );
    expect(view.violation.status).toBe('pending');
    expect(view.appeal).toBeNull();
    expect(view.gracePeriod.status).toBe('active');

    // Read again, the appeal is there with everything it changed.
    const after = await getViolation(
      contextWithWriteBetweenReads(async () => {}),
      callerOf(platformId),
      found.violationId,
    );
    expect(after.violation.status).toBe('appealed');
    expect(after.appeal?.status).toBe('pending');
    expect(after.gracePeriod.status).toBe('paused');
  });

  it('when a violation is appealed while listed, and the appeal upheld while its grace period is read, then each view agrees with itself', async () => {
    const platformId = newId('plat');
    const client = h.platform({ platformId });
    const box = await h.box('Frida Kahlo', 'LICENSE');
    const found = await h.violation(client, box);
    let appealId = '';
    const appeal = async () => {
      const res = await client.call('POST', `/v1/svc/violations/${found.violationId}/appeal`, {
        reason: 'parody',
        explanation: 'It is satire',
      });
      expect(res.status).toBe(200);
      appealId = res.body.data.appeal.id as string;
    };
    const uphold = async () => {
      const res = await h.operator().call('POST', `/admin/appeals/${appealId}/decide`, { outcome: 'upheld' });
      expect(res.status).toBe(200);
    };

    const list = await listViolations(contextWithWriteBetweenReads(appeal), callerOf(platformId), {
      limit: 20,
      offset: 0,
    });
    expect(list.total).toBe(1);
    expect(list.items.map((v) => [v.violation.status, v.appeal?.status ?? null])).toEqual([
      ['pending', null],
    ]);

    const view = await getGracePeriod(
      contextWithWriteBetweenReads(uphold),
      callerOf(platformId),
      found.gracePeriodId,
    );
    expect([view.violation.status, view.gracePeriod.status, view.appeal?.status]).toEqual([
      'appealed',
      'paused',
      'pending',
    ]);

    const owner = await listBoxViolations(
      contextWithWriteBetweenReads(async () => {}),
      callerOf(box.ownerPlatformId),
      box.boxId,
      { limit: 20, offset: 0 },
    );
    expect(owner.items.map((v) => [v.violation.status, v.gracePeriod.status])).toEqual([
      ['dismissed', 'resolved'],
    ]);
  });
});
