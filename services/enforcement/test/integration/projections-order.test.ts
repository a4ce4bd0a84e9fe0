import type { EventEnvelope } from '@svc/contracts/common';
import { boxIndexed } from '@svc/contracts/detection';
import { assertOrderIndependent, boxHistories, licenseHistories, stampVersions } from '@svc/test-kit';
import fc from 'fast-check';
import { startEnforcementHarness, type EnforcementHarness } from '../fixtures/enforcement-harness';

// ADR 0010: enforcement's box and license projections, and the initial scan started by
// detection.box.indexed, end in the same state whatever order and however many times their
// events arrive.

let h: EnforcementHarness;
beforeAll(async () => {
  h = await startEnforcementHarness();
});
afterAll(async () => {
  await h.stop();
});

const deliver = async (envelope: EventEnvelope) => {
  await h.bus.publish(envelope);
};
const idOf = (history: EventEnvelope[], key: string) => String(history[0]?.data[key]);

describe("enforcement's projections under any order of delivery", () => {
  it('when a box is created, updated and perhaps deleted, delivered shuffled and twice, then the box projection ends as in order', async () => {
    await assertOrderIndependent({
      history: boxHistories(),
      deliver,
      state: async (history) =>
        (
          await h.running.db.query(
            // A deleted box is only "deleted": what it was before does not count.
            `SELECT CASE WHEN deleted_at IS NULL THEN policy END AS policy,
               CASE WHEN deleted_at IS NULL THEN policy_config END AS policy_config,
               deleted_at IS NOT NULL AS deleted FROM boxes WHERE box_id = $1`,
            [idOf(history, 'boxId')],
          )
        ).rows,
    });
  });

  it('when a license lifecycle at one instant is delivered shuffled and twice, then the license projection ends as in order', async () => {
    await assertOrderIndependent({
      history: licenseHistories(),
      deliver,
      state: async (history) =>
        (
          await h.running.db.query('SELECT status, version FROM licenses WHERE license_id = $1', [
            idOf(history, 'licenseId'),
          ])
        ).rows,
    });
  });

  it('when detection.box.indexed arrives shuffled and twice (first or later indexing), then one initial scan is recorded', async () => {
    const indexed = (boxId: string, firstIndexed: boolean) =>
      boxIndexed.create(
        {
          boxId,
          claimId: 'claim_0000000000000000',
          ownerPlatformId: 'plat_0000000000000000',
          identityName: 'Ada Lovelace',
          policy: 'LICENSE',
          enforcement: 'MODERATE',
          firstIndexed,
          referenceImagesIndexed: 0,
          indexedAt: h.clock.now().toISOString(),
        },
        { occurredAt: h.clock.now() },
      );
    await assertOrderIndependent({
      history: fc
        .integer({ min: 0, max: 3 })
        .map((later) =>
          stampVersions([
            indexed('box_1ndexedOrder000000', true),
            ...Array.from({ length: later }, () => indexed('box_1ndexedOrder000000', false)),
          ]),
        ),
      deliver,
      state: async (history) =>
        (
          await h.running.db.query('SELECT count(*)::int AS scans FROM box_scans WHERE box_id = $1', [
            idOf(history, 'boxId'),
          ])
        ).rows,
      numRuns: 10,
    });
  });
});
