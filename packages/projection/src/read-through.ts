import { snapshotPath } from '@svc/contracts/common';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { Database, Queryable } from '@svc/ports';
import { createServiceClient, type ServiceClient } from '@svc/service-kit';
import type { Registry } from 'prom-client';

// Read-through to the owner on a projection miss (ADR 0010): a write that names an entity created
// a moment ago in another service must not answer 404 while its events are on their way. The
// owner's internal snapshot route answers the entity and the version of its latest event; the
// answer is stored like an event at that version, so the events still on their way apply or not
// by the one ordering rule.

/** An entity as its owner holds it now, with the entity version of its latest event. */
export interface OwnerSnapshot<E> {
  version: number;
  entity: E;
}

/** The owner of a projected entity, asked on a miss. */
export interface SnapshotSource<E> {
  /**
   * The entity as the owner holds it now, or null when the owner says there is no such entity.
   * Throws AppError SERVICE_UNAVAILABLE (with Retry-After) when the owner cannot answer.
   */
  snapshot(id: string): Promise<OwnerSnapshot<E> | null>;
  close(): Promise<void>;
}

/** What validates an owner's answer (the owner contract's `snapshotOf(...)` schema). */
export interface SnapshotSchema<E> {
  safeParse(
    body: unknown,
  ): { success: true; data: { data: OwnerSnapshot<E> } } | { success: false; error: unknown };
}

export interface SnapshotClientOptions<E> {
  /** The asking service (its internal token) and the owner (metrics, errors). */
  service: string;
  owner: string;
  /** The owner's internal snapshot route, `/internal/<things>/:id`. */
  route: `${string}/:id`;
  schema: SnapshotSchema<E>;
  baseUrl: string;
  internalJwtSecret: string;
  environment: 'sandbox' | 'production';
  timeoutMs: number;
  registry?: Registry;
  logger?: Logger;
}

/** The owner over HTTP: the service-kit client (timeout, circuit breaker) with the asker's internal token. */
export class HttpSnapshotSource<E> implements SnapshotSource<E> {
  private readonly http: ServiceClient;

  constructor(private readonly options: SnapshotClientOptions<E>) {
    this.http = createServiceClient({
      service: options.service,
      target: options.owner,
      baseUrl: options.baseUrl,
      internalJwtSecret: options.internalJwtSecret,
      environment: options.environment,
      timeoutMs: options.timeoutMs,
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  }

  async snapshot(id: string): Promise<OwnerSnapshot<E> | null> {
    const { owner, route, schema } = this.options;
    const response = await this.http.json<unknown>({ method: 'GET', path: snapshotPath(route, id) });
    if (response.status === 404) return null;
    const parsed = response.status === 200 ? schema.safeParse(response.body) : undefined;
    if (parsed?.success !== true) {
      throw new AppError('SERVICE_UNAVAILABLE', `${owner} answered ${response.status}`, {
        headers: { 'Retry-After': '1' },
        details: { reason: `${owner}_error`, status: response.status },
        ...(parsed === undefined ? {} : { cause: parsed.error }),
      });
    }
    return parsed.data.data;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** How a projection is read through: whether it holds the entity, and how it stores an answer. */
export interface ReadThrough<E> {
  db: Queryable & Pick<Database, 'transaction'>;
  source: SnapshotSource<E>;
  isProjected(q: Queryable, id: string): Promise<boolean>;
  /** Stores the owner's answer like an event at `snapshot.version` (the table's upsert-if-newer). */
  store(tx: Queryable, snapshot: OwnerSnapshot<E>): Promise<unknown>;
}

/**
 * Makes sure the projection holds `id`, asking the owner on a miss. Nothing is stored when the
 * owner says there is no such entity (the caller's lookup then answers 404); SERVICE_UNAVAILABLE
 * when the owner cannot answer.
 */
export async function fillOnMiss<E>(projection: ReadThrough<E>, id: string): Promise<void> {
  if (await projection.isProjected(projection.db, id)) return;
  const snapshot = await projection.source.snapshot(id);
  if (snapshot === null) return;
  // Not the request's effect: a retry may fill it again, so the request's Idempotency-Key does not
  // commit here, only with the request's own write (a failure in between must not strand the key).
  await projection.db.transaction((tx) => projection.store(tx, snapshot), { requestEffect: false });
}
