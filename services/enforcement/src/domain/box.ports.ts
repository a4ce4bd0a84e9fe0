import type { Policy } from '@svc/contracts/common';
import type { Queryable } from '@svc/ports';
import type { LicenseRecord } from './resolution-check';
import type { EnforcementLevel } from './timeline';

// Enforcement's views of boxes and licenses (projections of the registry's and licensing's events), and box scans.

export interface BoxView {
  boxId: string;
  claimId: string;
  ownerPlatformId: string;
  identityName: string;
  policy: Policy;
  enforcement: EnforcementLevel;
  policyConfig: Record<string, unknown>;
  updatedAt: Date;
  /** The box's entity version (ADR 0010); 0 for an unversioned event. */
  version: number;
  deletedAt: Date | null;
}

export interface BoxStore {
  /** Inserts or replaces the box unless the stored one is newer or the box was deleted. */
  upsert(tx: Queryable, box: BoxView): Promise<void>;
  markDeleted(
    tx: Queryable,
    box: Omit<BoxView, 'policy' | 'enforcement' | 'policyConfig' | 'updatedAt' | 'version' | 'deletedAt'>,
    deletedAt: Date,
  ): Promise<void>;
  find(q: Queryable, boxId: string): Promise<BoxView | null>;
  findMany(q: Queryable, boxIds: string[]): Promise<Map<string, BoxView>>;
}

export interface LicenseFact {
  licenseId: string;
  boxId: string;
  licenseePlatformId: string;
  status: string;
  tier: string;
  updatedAt: Date;
  /** The license's entity version (ADR 0010); 0 for an unversioned event. */
  version: number;
}

export interface LicenseProjectionStore {
  /** Applies the fact unless a newer one is stored; true when applied. */
  apply(tx: Queryable, fact: LicenseFact): Promise<boolean>;
  /** The tiers of the platform's active licenses on the box (none: an empty list). */
  activeTiers(q: Queryable, platformId: string, boxId: string): Promise<string[]>;
  /** One license; `lock` holds its row until the transaction ends (a lapse waits for a resolution resting on it). */
  find(q: Queryable, licenseId: string, options?: { lock?: boolean }): Promise<LicenseRecord | null>;
}

export interface BoxScan {
  boxId: string;
  status: 'in_progress' | 'completed';
  cursorSeq: number;
  avatarsScanned: number;
  violationsCreated: number;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  startedAt: Date;
  completedAt: Date | null;
  /** While a worker holds the scan. */
  leaseUntil: Date | null;
}

export interface BoxScanStore {
  /** Records a new scan; false when the box was already scanned or is being scanned. */
  start(tx: Queryable, boxId: string, now: Date): Promise<boolean>;
  /**
   * Scans the box again from its first avatar: its matchable surface changed. A scan running now
   * is superseded (its worker's next update writes nothing); `startedAt` always moves forward.
   */
  restart(tx: Queryable, boxId: string, now: Date): Promise<void>;
  /** One scan that is due, leased until `leaseUntil`. */
  leaseDue(tx: Queryable, now: Date, leaseUntil: Date): Promise<BoxScan | null>;
  find(q: Queryable, boxId: string, options?: { lock?: boolean }): Promise<BoxScan | null>;
  /**
   * Writes the scan's progress; false (nothing written) when it was restarted since it was read,
   * or, given the lease the worker holds (`heldUntil`), when the row's lease is no longer that one:
   * it ran out under a stalled worker and another one took the scan over (issue #34).
   */
  update(tx: Queryable, scan: BoxScan, heldUntil?: Date): Promise<boolean>;
}
