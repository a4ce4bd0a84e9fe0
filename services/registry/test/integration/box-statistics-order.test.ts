import type { EventEnvelope } from '@svc/contracts/common';
import { assertOrderIndependent, licenseHistories, usageHistories, violationHistories } from '@svc/test-kit';
import fc from 'fast-check';
import { startRegistryHarness, type RegistryHarness } from '../fixtures/registry-harness';

// ADR 0010: the box statistics read model ends in the same state whatever order and however many
// times the violation, grace-period and license events arrive (no double count, nothing negative).

const BOX = 'box_0rderIndependent000';

let h: RegistryHarness;
beforeAll(async () => {
  h = await startRegistryHarness();
});
afterAll(async () => {
  await h.stop();
});

const factsOf = async (boxId: string) => {
  const rows = async (table: string, key: string) =>
    (
      await h.running.db.query(
        `SELECT ${key} AS id, status, event_version FROM ${table} WHERE box_id = $1 ORDER BY ${key}`,
        [boxId],
      )
    ).rows.map((row) => [row.id, row.status, Number(row.event_version)]);
  return {
    violations: await rows('stats_violations', 'violation_id'),
    gracePeriods: await rows('stats_grace_periods', 'grace_period_id'),
    licenses: await rows('stats_licenses', 'license_id'),
    statistics: await h.running.db.query(
      `SELECT
         (SELECT count(*) FROM stats_violations WHERE box_id = $1 AND status = 'pending') AS pending,
         (SELECT count(*) FROM stats_violations WHERE box_id = $1 AND status = 'appealed') AS appealed,
         (SELECT count(*) FROM stats_grace_periods WHERE box_id = $1 AND status IN ('active', 'paused')) AS active,
         (SELECT count(*) FROM stats_licenses WHERE box_id = $1 AND status = 'active') AS licensed,
         (SELECT COALESCE(sum(total_cents), 0) FROM stats_usage WHERE box_id = $1) AS revenue_cents`,
      [boxId],
    ),
  };
};

describe('box statistics under any order of delivery', () => {
  it('when violations, grace periods, licenses and usage reports of a box arrive shuffled and twice, then the statistics equal in-order delivery', async () => {
    await assertOrderIndependent({
      history: fc
        .tuple(
          violationHistories(BOX),
          violationHistories(BOX),
          licenseHistories({ boxId: BOX }),
          usageHistories(BOX),
        )
        .map((parts) => parts.flat()),
      deliver: (envelope: EventEnvelope) => h.publish(envelope),
      state: async (history) => {
        const facts = await factsOf((history[0]?.data as { boxId: string }).boxId);
        return { ...facts, statistics: facts.statistics.rows };
      },
      numRuns: 30,
    });
  });
});
