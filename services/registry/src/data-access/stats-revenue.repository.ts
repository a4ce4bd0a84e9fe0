import { ProjectionTable } from '@svc/projection';
import type { Queryable } from '@svc/storage';
import type { FeeFact, UsageFact } from '../domain/box-stats';
import type { DB } from './db.generated';

// One row per license and period, ordered by the version billing numbers a period's report (and
// its corrections) and fee notices with: the highest is kept (ADR 0010).
const usage = new ProjectionTable<DB, 'statsUsage'>({
  table: 'statsUsage',
  key: ['licenseId', 'period'],
  version: 'version',
});
const fees = new ProjectionTable<DB, 'statsFees'>({
  table: 'statsFees',
  key: ['licenseId', 'period'],
  version: 'version',
});

/** Usage reports and license fees of the box statistics: one row per license and period. */
export class StatsRevenueRepository {
  async recordUsage(tx: Queryable, fact: UsageFact): Promise<void> {
    // A correction (higher version) replaces the period's report; the box and platform stay.
    await usage.upsertIfNewer(
      tx,
      {
        licenseId: fact.licenseId,
        period: fact.period,
        boxId: fact.boxId,
        licenseePlatformId: fact.licenseePlatformId,
        version: fact.version,
        licenseePlatformName: fact.licenseePlatformName,
        users: fact.users,
        subscriptionsCents: fact.subscriptionsCents,
        messagesCents: fact.messagesCents,
        tipsCents: fact.tipsCents,
        totalCents: fact.totalCents,
      },
      {
        update: [
          'version',
          'licenseePlatformName',
          'users',
          'subscriptionsCents',
          'messagesCents',
          'tipsCents',
          'totalCents',
        ],
      },
    );
  }

  async recordFee(tx: Queryable, fact: FeeFact): Promise<void> {
    // Billing's notices carry the period's whole current fee; a higher version replaces it, so a
    // redelivered or late older notice changes nothing.
    await fees.upsertIfNewer(
      tx,
      {
        licenseId: fact.licenseId,
        period: fact.period,
        version: fact.version,
        boxId: fact.boxId,
        licenseePlatformId: fact.licenseePlatformId,
        amountCents: fact.amountCents,
      },
      { update: ['version', 'amountCents'] },
    );
  }
}
