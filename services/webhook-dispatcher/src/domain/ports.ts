import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { GuardedFetchOptions, GuardedResponse } from '@svc/fetch-guard';
import type { Logger } from '@svc/logger';
import type { Queryable } from '@svc/ports';
import type { RetryPolicy } from './retry-schedule';

export type EndpointStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface Endpoint {
  id: string;
  platformId: string;
  url: string;
  /** Public event names, or ['*']. */
  events: string[];
  description: string | null;
  status: EndpointStatus;
  disabledReason: string | null;
  disabledAt: Date | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  consecutiveFailures: number;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  breakerOpenUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Delivery {
  id: string;
  endpointId: string;
  platformId: string;
  eventId: string;
  eventType: string;
  payload: string;
  status: DeliveryStatus;
  test: boolean;
  manual: boolean;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  eventCreatedAt: Date;
  createdAt: Date;
  /** The trace the event came in (tracing on): its attempts are spans of that trace. */
  traceContext: Record<string, string> | null;
}

/** What sending a delivery needs of its endpoint. */
export type SendingEndpoint = Pick<
  Endpoint,
  'id' | 'platformId' | 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'
>;

/** A leased endpoint and its first due deliveries, oldest first. */
export interface DueDeliveries {
  endpoint: SendingEndpoint;
  due: Delivery[];
  /** The lease's fencing token: taking the endpoint's lease counts it up (issue #34). */
  leaseToken: number;
}

/** What the lease statement says of a due delivery: which, and its state (not its payload). */
export type DueRef = Pick<Delivery, 'id' | 'attemptCount' | 'manual'>;

/** A leased endpoint as the lease statement returns it: its due deliveries by reference (ADR 0036). */
export type LeasedEndpoint = Omit<DueDeliveries, 'due'> & { due: DueRef[] };

/** An endpoint's lease as the worker that took it knows it. */
export interface Lease {
  endpointId: string;
  owner: string;
  /** The endpoint's lease_token when it was taken: a later holder has another. */
  token: number;
}

/**
 * What the lease says before one more POST: `send`; `stop` (the lease is still this worker's but
 * has expired, the endpoint was disabled, or the delivery is no longer due as read: send no more,
 * record what was sent); `lost` (another worker has taken the endpoint, or it was deleted: send
 * and record nothing).
 */
export type LeaseCheck = 'send' | 'stop' | 'lost';

/** A batch of one endpoint whose every attempt succeeded, to record. */
export interface SucceededBatch {
  endpointId: string;
  /** Recorded only if the endpoint's lease still has this token and owner. */
  leaseToken: number;
  attempts: Attempt[];
  updates: DeliveryUpdate[];
  succeededAt: Date;
}

export interface Attempt {
  deliveryId: string;
  number: number;
  attemptedAt: Date;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
  /** The first RESPONSE_EXCERPT_CHARS characters of the answer's body; null without one. */
  responseBody: string | null;
  durationMs: number;
  error: string | null;
  nextRetryAt: Date | null;
}

export interface NewDelivery {
  id: string;
  endpointId: string;
  platformId: string;
  eventId: string;
  eventType: string;
  payload: string;
  test: boolean;
  eventCreatedAt: Date;
  createdAt: Date;
  traceContext: Record<string, string> | null;
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: EndpointStatus;
}

export interface Page {
  limit: number;
  offset: number;
}

/** Webhook endpoints, their circuit and the worker leases (data-access/endpoint.repository.ts). */
export interface EndpointStore {
  insert(tx: Queryable, endpoint: Endpoint): Promise<void>;
  /** The platform's endpoint, or null (another platform's is not found). */
  find(q: Queryable, platformId: string, id: string): Promise<Endpoint | null>;
  list(q: Queryable, platformId: string, page: Page): Promise<{ items: Endpoint[]; total: number }>;
  /** Enabled endpoints of these platforms (one query for a whole batch of events). */
  enabledOf(q: Queryable, platformIds: string[]): Promise<Endpoint[]>;
  update(tx: Queryable, id: string, patch: EndpointPatch, now: Date): Promise<void>;
  rotateSecret(tx: Queryable, id: string, secret: string, previousExpiresAt: Date, now: Date): Promise<void>;
  delete(tx: Queryable, id: string): Promise<void>;
  /** Serialises endpoint creation and enabling for one platform until the transaction ends (quota). */
  lockPlatform(tx: Queryable, platformId: string): Promise<void>;
  /** The platform's enabled endpoints: what counts against MAX_WEBHOOK_ENDPOINTS. */
  countEnabled(q: Queryable, platformId: string): Promise<number>;
  disable(tx: Queryable, id: string, reason: string, now: Date): Promise<void>;
  /**
   * Takes up to `limit` enabled endpoints with a due delivery, closed circuit and no live lease
   * (FOR UPDATE SKIP LOCKED), least recently served first, leases them to `owner` until
   * `leaseUntil` (counting its lease token up), and returns each with its token and its first
   * `perEndpoint` due deliveries by reference, oldest first, read once the lease has committed.
   */
  leaseDue(
    q: Queryable,
    owner: string,
    limit: number,
    exclude: string[],
    now: Date,
    leaseUntil: Date,
    perEndpoint: number,
  ): Promise<LeasedEndpoint[]>;
  /**
   * Before each POST: whether `lease` is still held (owner and token) and unexpired at `now`, the
   * endpoint enabled and `delivery` still pending after `attemptCount` attempts.
   */
  checkLease(
    q: Queryable,
    lease: Lease,
    delivery: Pick<Delivery, 'id' | 'attemptCount'>,
    now: Date,
  ): Promise<LeaseCheck>;
  /**
   * Gives the lease back if it is still `lease` (owner and token); `now` is kept as when it was
   * last served. False when another worker holds it: in a transaction, the row stays locked, so
   * none can take it before the transaction ends.
   */
  releaseLease(q: Queryable, lease: Lease, now: Date): Promise<boolean>;
  /** Extends these leases of `owner` to `leaseUntil` where each still has its token. */
  renewLeases(
    q: Queryable,
    owner: string,
    leases: Array<Pick<Lease, 'endpointId' | 'token'>>,
    leaseUntil: Date,
  ): Promise<void>;
  recordSuccess(tx: Queryable, endpointId: string, now: Date): Promise<void>;
  /** Counts a failure; returns the endpoint's streak after it. */
  recordFailure(
    tx: Queryable,
    endpointId: string,
    now: Date,
    breakerThreshold: number,
    breakerOpenUntil: Date,
  ): Promise<{ consecutiveFailures: number; failingSince: Date }>;
}

/** Deliveries owed to endpoints (data-access/delivery.repository.ts). */
export interface DeliveryStore {
  /**
   * Waits for the intake transactions that inserted deliveries before this one to end, and holds
   * the others back until this one ends (a transaction-level advisory lock).
   */
  lockIntakeOrder(tx: Queryable): Promise<void>;
  /**
   * Inserts deliveries, each event's payload stored once; one already there for (endpoint, event)
   * is kept. Returns the ids of the new ones.
   */
  insertMany(tx: Queryable, deliveries: NewDelivery[]): Promise<string[]>;
  find(q: Queryable, endpointId: string, id: string): Promise<Delivery | null>;
  /** These deliveries, in no particular order (those not found left out). */
  findMany(q: Queryable, ids: string[]): Promise<Delivery[]>;
  /** Newest first. */
  list(
    q: Queryable,
    endpointId: string,
    filter: Page & { status?: DeliveryStatus | undefined },
  ): Promise<{ items: Delivery[]; total: number }>;
  requeueManually(tx: Queryable, id: string, now: Date): Promise<void>;
  /**
   * Requeues up to `limit` failed deliveries of the endpoint created at or after `since`, oldest
   * first, for one attempt each; how many, and whether failed ones since are left.
   */
  requeueFailedSince(
    q: Queryable,
    endpointId: string,
    since: Date,
    now: Date,
    limit: number,
  ): Promise<{ queued: number; more: boolean }>;
  /** The states of several deliveries after their attempts (one statement). */
  recordAttempts(tx: Queryable, deliveries: DeliveryUpdate[]): Promise<void>;
  /**
   * Batches that all succeeded, of any number of endpoints leased to `owner`, in one statement:
   * their attempts, their deliveries, each endpoint's success, and its lease released. A batch
   * whose endpoint's lease has another owner or token now is not recorded at all (fenced).
   * Returns the endpoints whose batch was recorded.
   */
  recordSucceeded(q: Queryable, owner: string, batches: SucceededBatch[]): Promise<string[]>;
  countPending(q: Queryable): Promise<number>;
}

/** Attempts at deliveries (data-access/attempt.repository.ts). */
export interface AttemptStore {
  insertMany(tx: Queryable, attempts: Attempt[]): Promise<void>;
  /** The attempts of these deliveries, by delivery and number. */
  of(q: Queryable, deliveryIds: string[]): Promise<Attempt[]>;
}

/** Runs work in one transaction. */
export interface TransactionRunner extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export interface DeliveryUpdate {
  id: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastError: string | null;
}

/** An outbound POST under the fetch guard (guardedFetch, or a test double). */
export type FetchFn = (url: string, options: GuardedFetchOptions) => Promise<GuardedResponse>;

/** What the use cases need; start.ts builds it. */
export interface WebhookContext {
  db: TransactionRunner;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  attempts: AttemptStore;
  clock: Clock;
  logger: Logger;
  environment: 'sandbox' | 'production';
  allowPrivateFetch: boolean;
  /** MAX_WEBHOOK_ENDPOINTS: enabled endpoints a platform may have (default 20). */
  maxEndpoints?: number | undefined;
  retry: RetryPolicy;
  fetch: FetchFn;
  /** Per-attempt deadline (10 s). */
  attemptTimeoutMs: number;
  /** Tells the worker that deliveries are due now. */
  kick(): void;
  /** Hands deliveries just committed to the worker, which keeps them to send (ADR 0036), and kicks it. */
  handOff(deliveries: Delivery[]): void;
  /** Publishes events recorded in the outbox now rather than at the next poll. */
  kickOutbox(): void;
}

/** An internal event as the consumer receives it. */
export type InternalEvent = EventEnvelope;
