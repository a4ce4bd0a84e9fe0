import type { EventEnvelope } from '@svc/contracts';
import { assertOrderIndependent, usageHistories } from '@svc/test-kit';
import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// ADR 0010: the usage figures licensing shows on a license end in the same state whatever order
// and however many times a period's report and its corrections arrive.

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('usage figures under any order of delivery', () => {
  it('when a report and its corrections arrive shuffled and twice, then the latest correction stands', async () => {
    await assertOrderIndependent({
      history: usageHistories('box_usageOrder00000000'),
      deliver: (envelope: EventEnvelope) => h.publish(envelope),
      state: async (history) =>
        (
          await h.running.db.query(
            'SELECT period, version, subscribers, revenue_cents FROM license_usage WHERE license_id = $1',
            [String(history[0]?.data.licenseId)],
          )
        ).rows,
    });
  });
});
