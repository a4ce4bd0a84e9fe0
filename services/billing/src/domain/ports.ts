import type { Clock, SandboxClockStore } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable, TransactionOptions } from '@svc/ports';
import type { LicenseProjection } from './license';
import type { LicenseSnapshot } from '@svc/contracts/licensing';
import type { SnapshotSource } from '@svc/projection';
import type { UsageReport } from './usage-report';

export interface LicenseStore {
  /** `lock`: FOR UPDATE, so reports of one license take turns. */
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<LicenseProjection | null>;
  /** Inserts or replaces the license, unless the stored one comes from a later event. */
  save(tx: Queryable, license: LicenseProjection): Promise<void>;
  /** Ids of active licenses (of one licensee, if given). */
  activeIds(q: Queryable, licenseePlatformId?: string): Promise<string[]>;
}

/** The current fee of one license and period. */
export interface FeeCharge {
  licenseId: string;
  period: string;
  version: number;
  amountCents: bigint;
  /** The monthly fee the period was first billed at. */
  monthlyFeeCents: bigint;
  updatedAt: Date;
}

export interface FeeChargeStore {
  ofLicense(q: Queryable, licenseId: string): Promise<FeeCharge[]>;
  save(tx: Queryable, charge: FeeCharge): Promise<void>;
}

export interface UsageReportStore {
  /** The current (highest) version of a license's report of `period`. */
  current(q: Queryable, licenseId: string, period: string): Promise<UsageReport | null>;
  insert(tx: Queryable, report: UsageReport): Promise<void>;
  /** Marks an earlier version as replaced (it stays, with its ledger entry). */
  supersede(tx: Queryable, id: string, at: Date): Promise<void>;
}

export interface LedgerEntry {
  id: string;
  kind: 'accrual' | 'adjustment';
  /** A royalty (from a usage report) or a license's fee for a billing period. */
  charge: 'royalty' | 'fee';
  reportId: string | null;
  licenseId: string;
  period: string;
  payerPlatformId: string;
  recipientPlatformId: string;
  amountCents: bigint;
  currency: string;
  dueDate: Date;
  createdAt: Date;
}

export interface CurrencyTotals {
  currency: string;
  payableCents: bigint;
  receivableCents: bigint;
  payableFeesCents: bigint;
  receivableFeesCents: bigint;
}

export interface PendingPayout {
  charge: 'royalty' | 'fee';
  licenseId: string;
  period: string;
  amountCents: bigint;
  currency: string;
  dueDate: Date;
  recipient: string;
}

export interface LedgerStore {
  append(tx: Queryable, entry: LedgerEntry): Promise<void>;
  /** What `platformId` owes (as payer) and is owed (as recipient), per currency. */
  totals(q: Queryable, platformId: string): Promise<CurrencyTotals[]>;
  /** The payer's net amount per license and period, where it is above zero, oldest due first. */
  pendingPayouts(q: Queryable, payerPlatformId: string): Promise<PendingPayout[]>;
}

/** Licensing, asked about a license the projection has not heard of yet (read-through, ADR 0010). */
export type LicensingPort = SnapshotSource<LicenseSnapshot['entity']>;

/** Runs work in one transaction. */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** Who is calling, as the gateway vouched for it. */
export interface Caller {
  platformId: string;
  environment: 'sandbox' | 'production';
}

/** Everything billing's entry points hand to its use cases (wired in start.ts). */
export interface BillingContext {
  db: TransactionRunner;
  licenses: LicenseStore;
  /** Asked on a license projection miss (read-through, ADR 0010). */
  licensing: LicensingPort;
  reports: UsageReportStore;
  ledger: LedgerStore;
  fees: FeeChargeStore;
  clocks: SandboxClockStore;
  /** The service's clock; a platform's time adds its sandbox offset (platformNow). */
  clock: Clock;
  /** Records events in the outbox, in the caller's transaction. */
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
  /** Tells the relay that committed events are waiting. */
  eventsCommitted(): void;
  newId(prefix: 'usage' | 'led'): string;
}
