import { usageReported } from '@svc/contracts/billing';
import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { gracePeriodEvents, violationEvents } from '@svc/contracts/enforcement';
import { licenseEvents, licenseRequestEvents } from '@svc/contracts/licensing';
import type { Queryable } from '@svc/ports';
import { terminalRank } from './box-stats';
import type { BoxStatsStore } from './ports';

// The box statistics read model: each event of another service becomes one fact about a
// violation, grace period, license, license request or usage report. Facts are upserts ordered
// by the entity's version, then the event's instant (ADR 0010), and counts are derived from the
// facts, never incremented: redelivered or out-of-order events leave the right state and no
// counter can double-count or go negative.

type Parser = { type: string; parse(envelope: unknown): EventEnvelope<Record<string, unknown>> };

function definitionOf(envelope: EventEnvelope, definitions: readonly Parser[]): Parser {
  const definition = definitions.find((d) => d.type === envelope.type);
  // A type this consumer does not know is a bug in its bindings: fail, so it is dead-lettered and seen.
  if (definition === undefined) throw new Error(`No handler for ${envelope.type}`);
  return definition;
}

/** The violation's status after each event, and the event's place in the life cycle (ties). */
const VIOLATION_STATE: Record<string, { status: string; rank: number }> = {
  'enforcement.violation.created': { status: 'pending', rank: 0 },
  'enforcement.violation.appealed': { status: 'appealed', rank: 1 },
  'enforcement.violation.reopened': { status: 'pending', rank: 2 },
  'enforcement.violation.resolved': { status: 'resolved', rank: 3 },
  'enforcement.violation.dismissed': { status: 'dismissed', rank: 3 },
  'enforcement.violation.enforced': { status: 'enforced', rank: 3 },
};

/** enforcement.violation.*: detected, resolved, pending and appealed counts. */
export async function recordViolationEvent(
  stats: BoxStatsStore,
  tx: Queryable,
  received: EventEnvelope,
): Promise<void> {
  const event = definitionOf(received, violationEvents).parse(received);
  const state = VIOLATION_STATE[event.type] ?? { status: 'pending', rank: 0 };
  const data = event.data as {
    violationId: string;
    boxId: string;
    detectedAt?: string;
    resolvedAt?: string;
    resolution?: string;
    resolvedBy?: string;
  };
  await stats.recordViolation(tx, {
    id: data.violationId,
    boxId: data.boxId,
    status: state.status,
    at: new Date(event.occurredAt),
    rank: state.rank,
    version: entityVersionOf(event),
    detectedAt: data.detectedAt === undefined ? null : new Date(data.detectedAt),
    resolvedAt: data.resolvedAt === undefined ? null : new Date(data.resolvedAt),
    resolution: data.resolution ?? null,
    resolvedBy: data.resolvedBy ?? null,
  });
}

/** enforcement.grace_period.*: each event carries the period's status. */
export async function recordGracePeriodEvent(
  stats: BoxStatsStore,
  tx: Queryable,
  received: EventEnvelope,
): Promise<void> {
  const event = definitionOf(received, gracePeriodEvents).parse(received);
  const data = event.data as { gracePeriodId: string; boxId: string; status: string };
  await stats.recordGracePeriod(tx, {
    id: data.gracePeriodId,
    boxId: data.boxId,
    status: data.status,
    at: new Date(event.occurredAt),
    rank: terminalRank(data.status),
    version: entityVersionOf(event),
  });
}

/** licensing.license.* and licensing.request.*: license counts and licensed platforms. */
export async function recordLicensingEvent(
  stats: BoxStatsStore,
  tx: Queryable,
  received: EventEnvelope,
): Promise<void> {
  if (received.type.startsWith('licensing.request.')) {
    const event = definitionOf(received, licenseRequestEvents).parse(received);
    const data = event.data as { requestId: string; boxId: string };
    const verb = event.type.slice('licensing.request.'.length);
    const status = verb === 'created' ? 'pending' : verb;
    await stats.recordLicenseRequest(tx, {
      id: data.requestId,
      boxId: data.boxId,
      status,
      at: new Date(event.occurredAt),
      rank: terminalRank(status),
      version: entityVersionOf(event),
    });
    return;
  }
  const event = definitionOf(received, licenseEvents).parse(received);
  const data = event.data as {
    licenseId: string;
    boxId: string;
    status: string;
    licenseePlatformId: string;
    licenseePlatformName: string;
  };
  await stats.recordLicense(tx, {
    id: data.licenseId,
    boxId: data.boxId,
    status: data.status,
    at: new Date(event.occurredAt),
    rank: terminalRank(data.status),
    version: entityVersionOf(event),
    licenseePlatformId: data.licenseePlatformId,
    licenseePlatformName: data.licenseePlatformName,
  });
}

/** billing.usage.reported: revenue by period and type, and the top platforms. */
export async function recordUsageEvent(
  stats: BoxStatsStore,
  tx: Queryable,
  received: EventEnvelope,
): Promise<void> {
  const { data } = usageReported.parse(received);
  await stats.recordUsage(tx, {
    licenseId: data.licenseId,
    period: data.period,
    version: data.version,
    boxId: data.boxId,
    licenseePlatformId: data.licenseePlatformId,
    licenseePlatformName: data.licenseePlatformName,
    users: data.users,
    subscriptionsCents: data.revenueCents.subscriptions,
    messagesCents: data.revenueCents.messages,
    tipsCents: data.revenueCents.tips,
    totalCents: data.totalRevenueCents,
  });
}
