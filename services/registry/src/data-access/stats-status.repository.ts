import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { LicenseFact, StatusFact, ViolationFact } from '../domain/box-stats';
import type { DB } from './db.generated';

// The four status tables of the box statistics (violations, grace periods, licenses, license
// requests) share one rule, so they share this file: one row per entity, and a fact replaces the
// recorded one only when it is at least as recent: the entity version first (ADR 0010), then the
// instant and rank (the only order among unversioned events, version 0).
type StatusTable = 'statsViolations' | 'statsGracePeriods' | 'statsLicenses' | 'statsLicenseRequests';

const db = (q: Queryable) => kyselyOn<DB>(q);

function isNewer(table: StatusTable) {
  const own = (column: string) => sql.ref(`${table}.${column}`);
  const excluded = (column: string) => sql.ref(`excluded.${column}`);
  return sql<boolean>`(${excluded('eventVersion')}, ${excluded('eventAt')}, ${excluded('eventRank')})
    >= (${own('eventVersion')}, ${own('eventAt')}, ${own('eventRank')})`;
}

/** The column's incoming value when the fact is newer, else the recorded one. */
function fromNewer<T>(table: StatusTable, column: string) {
  return sql<T>`CASE WHEN ${isNewer(table)} THEN ${sql.ref(`excluded.${column}`)} ELSE ${sql.ref(`${table}.${column}`)} END`;
}

function newerState(table: StatusTable) {
  return {
    status: fromNewer<string>(table, 'status'),
    eventRank: fromNewer<number>(table, 'eventRank'),
    eventAt: fromNewer<Date>(table, 'eventAt'),
    eventVersion: fromNewer<number>(table, 'eventVersion'),
  };
}

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
    const table = 'statsViolations';
    // The first detection and resolution instants stay; a resolution is taken from a newer fact.
    const resolvedFromNewer = (column: 'resolution' | 'resolvedBy') =>
      sql<string | null>`CASE WHEN ${sql.ref('excluded.resolution')} IS NOT NULL AND ${isNewer(table)}
        THEN ${sql.ref(`excluded.${column}`)} ELSE ${sql.ref(`${table}.${column}`)} END`;
    await db(tx)
      .insertInto(table)
      .values({
        violationId: fact.id,
        ...state(fact),
        detectedAt: fact.detectedAt,
        resolvedAt: fact.resolvedAt,
        resolution: fact.resolution,
        resolvedBy: fact.resolvedBy,
      })
      .onConflict((conflict) =>
        conflict.column('violationId').doUpdateSet((eb) => ({
          ...newerState(table),
          detectedAt: eb.fn.coalesce(`${table}.detectedAt`, 'excluded.detectedAt'),
          resolvedAt: eb.fn.coalesce(`${table}.resolvedAt`, 'excluded.resolvedAt'),
          resolution: resolvedFromNewer('resolution'),
          resolvedBy: resolvedFromNewer('resolvedBy'),
        })),
      )
      .execute();
  }

  async recordGracePeriod(tx: Queryable, fact: StatusFact): Promise<void> {
    await db(tx)
      .insertInto('statsGracePeriods')
      .values({ gracePeriodId: fact.id, ...state(fact) })
      .onConflict((conflict) => conflict.column('gracePeriodId').doUpdateSet(newerState('statsGracePeriods')))
      .execute();
  }

  async recordLicense(tx: Queryable, fact: LicenseFact): Promise<void> {
    await db(tx)
      .insertInto('statsLicenses')
      .values({
        licenseId: fact.id,
        ...state(fact),
        licenseePlatformId: fact.licenseePlatformId,
        licenseePlatformName: fact.licenseePlatformName,
      })
      .onConflict((conflict) => conflict.column('licenseId').doUpdateSet(newerState('statsLicenses')))
      .execute();
  }

  async recordLicenseRequest(tx: Queryable, fact: StatusFact): Promise<void> {
    await db(tx)
      .insertInto('statsLicenseRequests')
      .values({ requestId: fact.id, ...state(fact) })
      .onConflict((conflict) => conflict.column('requestId').doUpdateSet(newerState('statsLicenseRequests')))
      .execute();
  }
}
