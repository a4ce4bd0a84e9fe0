import type { EventEnvelope } from '@svc/contracts/common';
import { assertOrderIndependent, boxHistories } from '@svc/test-kit';
import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// ADR 0010: licensing's box projection ends in the same state whatever order and however many
// times registry.box.* arrives.

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('the box projection under any order of delivery', () => {
  it('when a box is created, updated and perhaps deleted, delivered shuffled and twice, then the projection ends as in order', async () => {
    await assertOrderIndependent({
      history: boxHistories(),
      deliver: (envelope: EventEnvelope) => h.publish(envelope),
      state: async (history) =>
        (
          await h.running.db.query(
            // A deleted box is only "deleted": what it was before does not count.
            `SELECT CASE WHEN deleted_at IS NULL THEN policy END AS policy,
               CASE WHEN deleted_at IS NULL THEN policy_config END AS policy_config,
               deleted_at IS NOT NULL AS deleted FROM boxes WHERE box_id = $1`,
            [String(history[0]?.data.boxId)],
          )
        ).rows,
    });
  });
});
