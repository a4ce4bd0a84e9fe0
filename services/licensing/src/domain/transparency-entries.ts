import type { EventEnvelope } from '@svc/contracts/common';
import {
  violationCreated,
  violationDismissed,
  violationEnforced,
  violationReopened,
  violationResolved,
} from '@svc/contracts/enforcement';
import {
  licenseActivated,
  licenseCancelled,
  licenseExpired,
  licenseRenewed,
  licenseRevoked,
} from '@svc/contracts/licensing';
import { boxCreated, boxDeleted } from '@svc/contracts/registry';

// What the transparency log records (docs/spec/contracts.md §16, docs/adr/0030): every decision that changes
// whether an avatar may exist, one entry per decision, from the event that announced it. The entry
// names the decision, its subjects, the facts it rests on and when it was made; its parties (who may
// read it) are the box's owner and the platform on the other side.

/** A decision as the log keeps it (hashed as canonical JSON). */
export interface Decision {
  decision:
    | 'box.created'
    | 'box.removed'
    | 'license.activated'
    | 'license.renewed'
    | 'license.revoked'
    | 'license.cancelled'
    | 'license.lapsed'
    | 'violation.opened'
    | 'violation.resolved'
    | 'violation.enforced'
    | 'violation.dismissed'
    | 'appeal.decided';
  at: string;
  identityName: string;
  subject: Record<string, string>;
  facts: Record<string, unknown>;
  /** The event that announced it (its id is the entry's source: appended once). */
  eventId: string;
}

/** The resource a decision is about: it carries the entry's position as its `logEntry`. */
export interface LoggedResource {
  type: 'box' | 'license' | 'violation' | 'appeal';
  id: string;
  boxId: string;
}

export interface DecisionEntry {
  sourceId: string;
  decision: Decision;
  parties: string[];
  resource: LoggedResource;
}

const LICENSE_DECISIONS = new Map<string, Decision['decision']>([
  [licenseActivated.type, 'license.activated'],
  [licenseRenewed.type, 'license.renewed'],
  [licenseRevoked.type, 'license.revoked'],
  [licenseCancelled.type, 'license.cancelled'],
  [licenseExpired.type, 'license.lapsed'],
]);

// Built once: zod compiles a schema on its first parse, and a schema made per event is compiled
// per event (that took most of the log's CPU).
const licenseFields = licenseActivated.data.passthrough();
const violationFields = violationEnforced.data.passthrough();

const parties = (...ids: (string | undefined)[]): string[] =>
  [...new Set(ids.filter((id): id is string => id !== undefined && id !== ''))].sort();

/** The decisions an event announces (none for a type the log does not keep). */
export function decisionsOf(received: EventEnvelope): DecisionEntry[] {
  const eventId = received.id;
  const one = (
    decision: Omit<Decision, 'eventId'>,
    who: string[],
    resource: LoggedResource,
  ): DecisionEntry[] => [{ sourceId: eventId, decision: { ...decision, eventId }, parties: who, resource }];
  switch (received.type) {
    case boxCreated.type:
    case boxDeleted.type: {
      const created = received.type === boxCreated.type;
      const data = (created ? boxCreated : boxDeleted).parse(received).data;
      const facts = created ? { policy: boxCreated.parse(received).data.policy } : {};
      return one(
        {
          decision: created ? 'box.created' : 'box.removed',
          at: received.occurredAt,
          identityName: data.identityName,
          subject: { boxId: data.boxId, claimId: data.claimId },
          facts,
        },
        parties(data.ownerPlatformId),
        { type: 'box', id: data.boxId, boxId: data.boxId },
      );
    }
    case licenseActivated.type:
    case licenseRenewed.type:
    case licenseRevoked.type:
    case licenseCancelled.type:
    case licenseExpired.type: {
      const decision = LICENSE_DECISIONS.get(received.type) ?? 'license.activated';
      const data = licenseFields.parse(received.data) as ReturnType<typeof licenseActivated.parse>['data'] &
        Record<string, unknown>;
      const facts: Record<string, unknown> = {
        tier: data.tier,
        validFrom: data.validFrom,
        expiresAt: data.expiresAt,
      };
      for (const extra of ['reason', 'effectiveDate', 'effectiveAt', 'previousExpiry', 'newExpiry'])
        if (data[extra] !== undefined) facts[extra] = data[extra];
      return one(
        {
          decision,
          at: received.occurredAt,
          identityName: data.identityName,
          subject: { licenseId: data.licenseId, boxId: data.boxId, claimId: data.claimId },
          facts,
        },
        parties(data.boxOwnerPlatformId, data.licenseePlatformId),
        { type: 'license', id: data.licenseId, boxId: data.boxId },
      );
    }
    case violationCreated.type:
    case violationResolved.type:
    case violationEnforced.type:
    case violationDismissed.type:
    case violationReopened.type:
      return violationDecisions(received);
    default:
      return [];
  }
}

function violationDecisions(received: EventEnvelope): DecisionEntry[] {
  const eventId = received.id;
  const data = violationFields.parse(received.data) as ReturnType<typeof violationEnforced.parse>['data'] &
    Record<string, unknown>;
  const who = parties(data.boxOwnerPlatformId, received.platformId);
  const subject = {
    violationId: data.violationId,
    boxId: data.boxId,
    claimId: data.claimId,
    avatarId: data.avatarId,
  };
  const base = { at: received.occurredAt, identityName: data.identityName };
  const entry = (
    decision: Decision['decision'],
    facts: Record<string, unknown>,
    suffix = '',
  ): DecisionEntry => ({
    sourceId: `${eventId}${suffix}`,
    decision: { ...base, decision, subject: { ...subject }, facts, eventId },
    parties: who,
    resource:
      decision === 'appeal.decided'
        ? { type: 'appeal', id: String(facts.appealId), boxId: data.boxId }
        : { type: 'violation', id: data.violationId, boxId: data.boxId },
  });
  switch (received.type) {
    case violationCreated.type: {
      const created = violationCreated.parse(received).data;
      return [
        entry('violation.opened', {
          policy: created.policy,
          severity: created.severity,
          confidence: created.confidence,
          userCount: created.userCount,
          gracePeriodId: created.gracePeriodId,
        }),
      ];
    }
    case violationResolved.type: {
      const resolved = violationResolved.parse(received).data;
      return [
        entry('violation.resolved', {
          resolution: resolved.resolution,
          resolvedBy: resolved.resolvedBy ?? null,
          licenseId: resolved.licenseId,
        }),
      ];
    }
    case violationEnforced.type:
      return [entry('violation.enforced', { policy: data.policy, severity: data.severity })];
    case violationDismissed.type: {
      const { appealId } = violationDismissed.parse(received).data;
      // The appeal was upheld, and that dismissed the violation: two decisions, each logged once.
      return [
        entry('appeal.decided', { appealId, outcome: 'upheld' }, ':appeal'),
        entry('violation.dismissed', { appealId }),
      ];
    }
    default: {
      const { appealId } = violationReopened.parse(received).data;
      return [entry('appeal.decided', { appealId, outcome: 'denied' })];
    }
  }
}
