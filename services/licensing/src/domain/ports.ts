import type { BillingPort } from './billing.client';
import type { BoxSnapshot } from '@svc/contracts/registry';
import type { SnapshotSource } from '@svc/projection';
import type { Clock, SandboxClockStore } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable, TransactionOptions } from '@svc/ports';
import type { BoxView } from './box';
import type { SigningKey } from './signing-keys';
import type { License, LicenseStatus, LicenseRequest, LogEntryRef, RequestStatus, Tier } from './license';

export interface Page {
  limit: number;
  offset: number;
}

export interface BoxProjectionStore {
  /** Inserts or replaces the box unless the stored one is newer or the box was deleted. */
  upsert(tx: Queryable, box: BoxView): Promise<void>;
  /** Marks the box deleted for good, leaving a tombstone when its creation has not arrived yet. */
  markDeleted(
    tx: Queryable,
    box: { boxId: string; claimId: string; ownerPlatformId: string; identityName: string },
    deletedAt: Date,
  ): Promise<void>;
  /** A box by its id, or by its claim's id (`identity`); deleted ones too. */
  find(q: Queryable, id: string): Promise<BoxView | null>;
  findByIdentity(q: Queryable, identityId: string): Promise<BoxView | null>;
}

export interface LicenseRequestStore {
  insert(tx: Queryable, request: LicenseRequest): Promise<void>;
  update(tx: Queryable, request: LicenseRequest): Promise<void>;
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<LicenseRequest | null>;
  listForBox(
    q: Queryable,
    filter: Page & { boxId: string; status?: RequestStatus | undefined },
  ): Promise<{ items: LicenseRequest[]; total: number }>;
}

export interface LicenseStore {
  insert(tx: Queryable, license: License): Promise<void>;
  update(tx: Queryable, license: License): Promise<void>;
  find(q: Queryable, id: string, options?: { lock?: boolean }): Promise<License | null>;
  /** Where each license's newest logged decision sits; an older entry never replaces a newer one. */
  recordLogEntries(tx: Queryable, entries: ReadonlyMap<string, LogEntryRef>): Promise<void>;
  list(
    q: Queryable,
    filter: Page & {
      licenseePlatformId: string;
      status?: LicenseStatus | undefined;
      boxId?: string | undefined;
      tier?: Tier | undefined;
    },
  ): Promise<{ items: License[]; total: number }>;
  /** The licensee's active license on the box in that tier, if any. */
  findActiveHolding(
    q: Queryable,
    licenseePlatformId: string,
    boxId: string,
    tier: Tier,
  ): Promise<License | null>;
  /**
   * Active licenses whose expiry or scheduled cancellation is due by their licensee's clock (`now`
   * of the service plus the licensee's sandbox offset), of one licensee if given, locked (skipping
   * locked ones).
   */
  lockDue(tx: Queryable, now: Date, limit: number, licenseePlatformId?: string): Promise<License[]>;
}

export interface CredentialStore {
  /** The license's status list entry, allocated from the list's sequence the first time. */
  statusEntryOf(tx: Queryable, licenseId: string): Promise<StatusEntry>;
  insert(tx: Queryable, credential: StoredCredential): Promise<void>;
  /** The license's newest credential, if any. */
  newest(q: Queryable, licenseId: string): Promise<StoredCredential | null>;
  /**
   * The indexes of list `listId` whose license is no longer valid at `now` plus its licensee's
   * sandbox offset: revoked, cancelled, expired, or past a scheduled cancellation or an end
   * without renewal.
   */
  invalidIndexes(q: Queryable, listId: number, now: Date): Promise<number[]>;
}

/** Runs work in one transaction. */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** Who is calling, as the gateway vouched for it. */
export interface Caller {
  platformId: string;
  /** Shown as the licensee's name (authOf(req).platformName, else the platform id). */
  platformName: string;
  environment: 'sandbox' | 'production';
}

/** Everything the licensing entry points hand to its use cases (wired in start.ts). */
/** The registry, asked about a box the projection has not heard of yet (read-through, ADR 0010). */
export type RegistryPort = SnapshotSource<BoxSnapshot['entity']>;

export interface LicensingContext {
  db: TransactionRunner;
  boxes: BoxProjectionStore;
  /** Asked on a box projection miss (read-through, ADR 0010). */
  registry: RegistryPort;
  requests: LicenseRequestStore;
  licenses: LicenseStore;
  /** Asked for the usage a license's detail shows (billing owns usage, docs/adr/0016). */
  billing: BillingPort;
  clocks: SandboxClockStore;
  /** The service's clock; a platform's time adds its sandbox offset (platformNow). */
  clock: Clock;
  /** Records events in the outbox, in the caller's transaction. */
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
  /** Tells the relay that committed events are waiting. */
  eventsCommitted(): void;
  /** The version of the latest event about an entity (ADR 0010), 0 when none. */
  entityVersion(q: Queryable, entityId: string): Promise<number>;
  newId(prefix: 'lic' | 'req'): string;
  /** Issued credentials and status list entries (docs/adr/0029). */
  credentials: CredentialStore;
  /** Signs credentials and status lists with the current key. */
  signer: CredentialSigner;
}

/** A license's place in a status list. */
export interface StatusEntry {
  listId: number;
  idx: number;
}

/** A credential as stored: the newest of a license is the one served. */
export interface StoredCredential {
  licenseId: string;
  kid: string;
  credential: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** Where credentials are signed: the current key and the deployment's public base URL. */
export interface CredentialSigner {
  issuer: string;
  key(): SigningKey;
}
