import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Subscription } from '@svc/messaging';
import { projectionSubscription } from '@svc/projection';
import type { Database, Queryable } from '@svc/storage';
import type { BoxStatsStore } from '../../domain/ports';
import {
  recordGracePeriodEvent,
  recordLicensingEvent,
  recordUsageEvent,
  recordViolationEvent,
} from '../../domain/record-box-activity.use-case';
import { recordLicenseFeeEvent } from '../../domain/record-license-fee.use-case';

export interface BoxStatsConsumerDeps {
  db: Database;
  stats: BoxStatsStore;
  clock: Clock;
}

type Recorder = (stats: BoxStatsStore, tx: Queryable, envelope: EventEnvelope) => Promise<void>;

/** One queue per source of box statistics; each event is applied once per queue. */
const CONSUMERS: { queue: string; record: Recorder }[] = [
  { queue: 'registry.box-stats.violations', record: recordViolationEvent },
  { queue: 'registry.box-stats.grace-periods', record: recordGracePeriodEvent },
  { queue: 'registry.box-stats.licenses', record: recordLicensingEvent },
  { queue: 'registry.box-stats.usage', record: recordUsageEvent },
  // License fees are box revenue too (billing.payment.due of kind fee).
  { queue: 'registry.box-stats.fees', record: recordLicenseFeeEvent },
];

/** The subscriptions that feed the box statistics read model (patterns: the event topology's). */
export function boxStatsSubscriptions(deps: BoxStatsConsumerDeps): Subscription[] {
  return CONSUMERS.map(({ queue, record }) =>
    projectionSubscription({
      queue,
      db: deps.db,
      clock: deps.clock,
      apply: (tx, envelope) => record(deps.stats, tx, envelope),
    }),
  );
}
