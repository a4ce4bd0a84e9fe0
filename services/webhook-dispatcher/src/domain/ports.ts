import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts';
import type { GuardedFetchOptions, GuardedResponse } from '@svc/fetch-guard';
import type { Logger } from '@svc/logger';
import type { Queryable } from '@svc/storage';
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
}

export interface Attempt {
  deliveryId: string;
  number: number;
  attemptedAt: Date;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
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
}

export interface EndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: EndpointStatus;
}

/** The dispatcher's tables (data-access/webhook.repository.ts). */
export interface WebhookStore {
  insertEndpoint(endpoint: Endpoint): Promise<void>;
  findEndpoint(platformId: string, id: string): Promise<Endpoint | null>;
  endpointById(id: string): Promise<Endpoint | null>;
  listEndpoints(
    platformId: string,
    limit: number,
    offset: number,
  ): Promise<{ items: Endpoint[]; total: number }>;
  /** Enabled endpoints of a platform. */
  enabledEndpoints(platformId: string): Promise<Endpoint[]>;
  updateEndpoint(id: string, patch: EndpointPatch, now: Date): Promise<void>;
  rotateSecret(id: string, secret: string, previousExpiresAt: Date, now: Date): Promise<void>;
  deleteEndpoint(id: string): Promise<void>;
  disableEndpoint(id: string, reason: string, now: Date): Promise<void>;
  /** Inserts deliveries; one already there for (endpoint, event) is kept. Returns how many are new. */
  insertDeliveries(deliveries: NewDelivery[]): Promise<number>;
  findDelivery(endpointId: string, id: string): Promise<Delivery | null>;
  listDeliveries(
    endpointId: string,
    status: DeliveryStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<{ items: Delivery[]; total: number }>;
  attemptsOf(deliveryIds: string[]): Promise<Attempt[]>;
  requeueManually(id: string, now: Date): Promise<void>;
  /**
   * Takes up to `limit` enabled endpoints with a due delivery, closed circuit and no live lease
   * (FOR UPDATE SKIP LOCKED), and leases them to `owner` until `leaseUntil`.
   */
  leaseDueEndpoints(
    owner: string,
    limit: number,
    exclude: string[],
    now: Date,
    leaseUntil: Date,
  ): Promise<string[]>;
  releaseLease(endpointId: string, owner: string): Promise<void>;
  /** Extends the leases `owner` still holds on these endpoints to `leaseUntil`. */
  renewLeases(owner: string, endpointIds: string[], leaseUntil: Date): Promise<void>;
  /** The oldest due pending delivery of an endpoint, or null. */
  nextDueDelivery(endpointId: string, now: Date): Promise<Delivery | null>;
  recordAttempt(attempt: Attempt, delivery: DeliveryUpdate): Promise<void>;
  recordEndpointSuccess(endpointId: string, now: Date): Promise<void>;
  /** Counts a failure; returns the endpoint's streak after it. */
  recordEndpointFailure(
    endpointId: string,
    now: Date,
    breakerThreshold: number,
    breakerOpenUntil: Date,
  ): Promise<{ consecutiveFailures: number; failingSince: Date }>;
  countPending(): Promise<number>;
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
  store: WebhookStore;
  /** Runs `fn` in one transaction, with a store and the raw transaction (for the outbox). */
  transaction<T>(fn: (store: WebhookStore, tx: Queryable) => Promise<T>): Promise<T>;
  storeOn(tx: Queryable): WebhookStore;
  clock: Clock;
  logger: Logger;
  environment: 'sandbox' | 'production';
  allowPrivateFetch: boolean;
  retry: RetryPolicy;
  fetch: FetchFn;
  /** Per-attempt deadline (10 s). */
  attemptTimeoutMs: number;
  /** Tells the worker that deliveries are due now. */
  kick(): void;
  /** Publishes events recorded in the outbox now rather than at the next poll. */
  kickOutbox(): void;
}

/** An internal event as the consumer receives it. */
export type InternalEvent = EventEnvelope;
