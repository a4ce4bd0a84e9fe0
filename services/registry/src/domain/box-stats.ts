// Box statistics: a read model of enforcement's, licensing's and billing's events. Money is kept
// in integer cents (bigint; the events' decimal text, ADR 0039) and becomes a number of currency
// units only when presented.
import type { Cents, CentsText } from '@svc/money';

/** What a box's list and detail forms show. */
export interface BoxStatsSummary {
  totalViolations: number;
  resolvedViolations: number;
  activeGracePeriods: number;
  licensedPlatforms: number;
  totalLicenses: number;
  activeLicenses: number;
  monthlyRevenueCents: Cents;
  lifetimeRevenueCents: Cents;
}

export const EMPTY_SUMMARY: BoxStatsSummary = {
  totalViolations: 0,
  resolvedViolations: 0,
  activeGracePeriods: 0,
  licensedPlatforms: 0,
  totalLicenses: 0,
  activeLicenses: 0,
  monthlyRevenueCents: 0n,
  lifetimeRevenueCents: 0n,
};

/** The statistics object of `/boxes/{id}/stats`, in cents. */
export interface BoxStatistics {
  boxId: string;
  period: string;
  violations: {
    detected: number;
    resolved: number;
    pending: number;
    appealed: number;
    resolutions: { licensed: number; removed: number; modified: number; parody: number };
    resolvedBy: { platform: number; license: number; avatarChange: number };
  };
  gracePeriods: { active: number; expired: number; resolved: number };
  licenses: { total: number; active: number; pending: number; expired: number };
  revenueCents: {
    monthly: Cents;
    lifetime: Cents;
    /** `fees`: license fees billed for the period (billing.payment.due, kind fee). */
    byType: { subscriptions: Cents; messages: Cents; tips: Cents; fees: Cents };
  };
  platforms: { licensed: number; topPlatforms: { name: string; revenueCents: Cents; users: number }[] };
}

/** `YYYY-MM` of an instant, in UTC. */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** The first instant of a period and of the next one. */
export function periodBounds(period: string): { start: Date; end: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

/**
 * A fact about one violation, grace period, license or request. `version` (the entity's, ADR
 * 0010), then `at` (the event's instant) and `rank` order the facts: a fact older than the one
 * recorded changes nothing, so events may arrive out of order and more than once. `rank` breaks
 * ties among unversioned events (a final state wins over an earlier one at the same instant).
 */
export interface StatusFact {
  id: string;
  boxId: string;
  status: string;
  at: Date;
  rank: number;
  /** The entity version of the event (ADR 0010): orders facts before `at` and `rank`; 0 if unversioned. */
  version: number;
}

export interface ViolationFact extends StatusFact {
  detectedAt: Date | null;
  resolvedAt: Date | null;
  /** On a resolution: licensed, removed, modified or parody, and who resolved it. */
  resolution: string | null;
  resolvedBy: string | null;
}

export interface LicenseFact extends StatusFact {
  licenseePlatformId: string;
  licenseePlatformName: string;
}

export interface UsageFact {
  licenseId: string;
  period: string;
  version: number;
  boxId: string;
  licenseePlatformId: string;
  licenseePlatformName: string;
  users: number;
  subscriptionsCents: CentsText;
  messagesCents: CentsText;
  tipsCents: CentsText;
  totalCents: CentsText;
}

/** A license's fee for one period, as billing's latest notice says (highest version wins). */
export interface FeeFact {
  licenseId: string;
  period: string;
  version: number;
  boxId: string;
  licenseePlatformId: string;
  amountCents: CentsText;
}

/** Tie-break rank of a status: a final one wins over an open one at the same instant. */
export function terminalRank(status: string): number {
  return ['resolved', 'expired', 'cancelled', 'revoked', 'approved', 'denied'].includes(status) ? 1 : 0;
}
