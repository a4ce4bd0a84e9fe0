import { ProjectionTable, type ColumnOf } from '@svc/projection';
import { sql, type Queryable } from '@svc/storage';
import type { LicenseFact, StatusFact, ViolationFact } from '../domain/box-stats';
import type { DB } from './db.generated';

// The four status tables of the box statistics (violations, grace periods, licenses, license
// requests) share one rule, so they share this file: one row per entity, whose status is the one
// of the newest fact: the entity version first (ADR 0010), then the instant and rank (the only
// order among unversioned events, version 0). Facts are merged, not replaced: what an older fact
// adds (a violation's first instants) is kept.
type StatusTable = 'statsViolations' | 'statsGracePeriods' | 'statsLicenses' | 'statsLicenseRequests';

function statusTable<T extends StatusTable>(table: T, key: ColumnOf<DB, T>) {
  return new ProjectionTable<DB, T>({
    table,
    key,
    version: 'eventVersion',
    at: 'eventAt',
    rank: 'eventRank',
  });
}

const violations = statusTable('statsViolations', 'violationId');
const gracePeriods = statusTable('statsGracePeriods', 'gracePeriodId');
const licenses = statusTable('statsLicenses', 'licenseId');
const licenseRequests = statusTable('statsLicenseRequests', 'requestId');

/** The columns a newer fact replaces (the box and the licensee stay as first recorded). */
const STATE = ['status', 'eventRank', 'eventAt', 'eventVersion'] as const;

function state(fact: StatusFact) {
  return {
    boxId: fact.boxId,
    status: fact.status,
    eventAt: fact.at,
    eventRank: fact.rank,
    eventVersion: fact.version,
  };
}

/** Violations, grace periods, licenses and license requests of the box statistics. */
export class StatsStatusRepository {
  async recordViolation(tx: Queryable, fact: ViolationFact): Promise<void> {
    await violations.mergeNewer(
      tx,
      {
        violationId: fact.id,
        ...state(fact),
        detectedAt: fact.detectedAt,
        resolvedAt: fact.resolvedAt,
        resolution: fact.resolution,
        resolvedBy: fact.resolvedBy,
      },
      {
        update: STATE,
        // The first detection and resolution instants stay; a resolution is taken from a newer fact.
        set: ({ stored, incoming, newer }) => {
          const resolvedFromNewer = (column: 'resolution' | 'resolvedBy') =>
            sql<string | null>`CASE WHEN ${incoming('resolution')} IS NOT NULL AND ${newer}
              THEN ${incoming(column)} ELSE ${stored(column)} END`;
          return {
            detectedAt: sql<Date | null>`coalesce(${stored('detectedAt')}, ${incoming('detectedAt')})`,
            resolvedAt: sql<Date | null>`coalesce(${stored('resolvedAt')}, ${incoming('resolvedAt')})`,
            resolution: resolvedFromNewer('resolution'),
            resolvedBy: resolvedFromNewer('resolvedBy'),
          };
        },
      },
    );
  }

  async recordGracePeriod(tx: Queryable, fact: StatusFact): Promise<void> {
    await gracePeriods.mergeNewer(tx, { gracePeriodId: fact.id, ...state(fact) }, { update: STATE });
  }

  async recordLicense(tx: Queryable, fact: LicenseFact): Promise<void> {
    await licenses.mergeNewer(
      tx,
      {
        licenseId: fact.id,
        ...state(fact),
        licenseePlatformId: fact.licenseePlatformId,
        licenseePlatformName: fact.licenseePlatformName,
      },
      { update: STATE },
    );
  }

  async recordLicenseRequest(tx: Queryable, fact: StatusFact): Promise<void> {
    await licenseRequests.mergeNewer(tx, { requestId: fact.id, ...state(fact) }, { update: STATE });
  }
}
