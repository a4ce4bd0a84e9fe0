import type { EventEnvelope } from '@svc/contracts/common';
import { assertOrderIndependent, licenseHistories } from '@svc/test-kit';
import { startBillingHarness, type BillingHarness } from '../fixtures/billing-harness';

// ADR 0010: billing's license projection ends in the same state whatever order and however many
// times licensing.license.* arrives.

let h: BillingHarness;
beforeAll(async () => {
  h = await startBillingHarness();
});
afterAll(() => h.stop());

describe('the license projection under any order of delivery', () => {
  it('when a license lifecycle at one instant is delivered shuffled and twice, then the projection ends as in order', async () => {
    await assertOrderIndependent({
      history: licenseHistories(),
      deliver: (envelope: EventEnvelope) => h.publish(envelope),
      state: async (history) =>
        (
          await h.running.db.query(
            'SELECT status, expires_at, ended_at, version FROM licenses WHERE id = $1',
            [String(history[0]?.data.licenseId)],
          )
        ).rows,
    });
  });
});
