import { kyselyOn, type Queryable } from '@svc/storage';
import type { FeeFact, UsageFact } from '../domain/box-stats';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Usage reports and license fees of the box statistics: one row per license and period. */
export class StatsRevenueRepository {
  async recordUsage(tx: Queryable, fact: UsageFact): Promise<void> {
    // A correction (higher version) replaces the period's report; the box and platform stay.
    const latest = {
      version: fact.version,
      licenseePlatformName: fact.licenseePlatformName,
      users: fact.users,
      subscriptionsCents: fact.subscriptionsCents,
      messagesCents: fact.messagesCents,
      tipsCents: fact.tipsCents,
      totalCents: fact.totalCents,
    };
    await db(tx)
      .insertInto('statsUsage')
      .values({
        ...latest,
        licenseId: fact.licenseId,
        period: fact.period,
        boxId: fact.boxId,
        licenseePlatformId: fact.licenseePlatformId,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['licenseId', 'period'])
          .doUpdateSet(latest)
          .where((eb) => eb('excluded.version', '>', eb.ref('statsUsage.version'))),
      )
      .execute();
  }

  async recordFee(tx: Queryable, fact: FeeFact): Promise<void> {
    // Billing's notices carry the period's whole current fee; a higher version replaces it, so a
    // redelivered or late older notice changes nothing.
    await db(tx)
      .insertInto('statsFees')
      .values({
        licenseId: fact.licenseId,
        period: fact.period,
        version: fact.version,
        boxId: fact.boxId,
        licenseePlatformId: fact.licenseePlatformId,
        amountCents: fact.amountCents,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['licenseId', 'period'])
          .doUpdateSet({ version: fact.version, amountCents: fact.amountCents })
          .where((eb) => eb('excluded.version', '>', eb.ref('statsFees.version'))),
      )
      .execute();
  }
}
