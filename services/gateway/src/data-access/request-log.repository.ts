import { sql } from 'kysely';
import { kyselyOn, type Queryable } from '@svc/storage';
import type { LoggedRequest, RequestLogFilter, RequestLogStore } from '../domain/request-log';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

const STATUS_RANGES = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

/** The request log in the gateway's database (migration 0011). */
export class RequestLogRepository implements RequestLogStore {
  async append(q: Queryable, entries: LoggedRequest[]): Promise<void> {
    if (entries.length === 0) return;
    await sql`
      INSERT INTO request_log (platform_id, key_id, at, method, path, operation, status, latency_ms, request_id)
      SELECT * FROM unnest(
        ${entries.map((e) => e.platformId)}::text[],
        ${entries.map((e) => e.keyId)}::text[],
        ${entries.map((e) => e.at.toISOString())}::timestamptz[],
        ${entries.map((e) => e.method)}::text[],
        ${entries.map((e) => e.path)}::text[],
        ${entries.map((e) => e.operation)}::text[],
        ${entries.map((e) => e.status)}::int[],
        ${entries.map((e) => e.latencyMs)}::int[],
        ${entries.map((e) => e.requestId)}::text[]
      )`.execute(db(q));
  }

  async recent(
    q: Queryable,
    platformId: string,
    filter: RequestLogFilter,
  ): Promise<{ items: LoggedRequest[]; total: number }> {
    let matching = db(q).selectFrom('requestLog').where('platformId', '=', platformId);
    if (filter.keyId !== undefined) matching = matching.where('keyId', '=', filter.keyId);
    if (filter.requestId !== undefined) matching = matching.where('requestId', '=', filter.requestId);
    if (filter.status !== undefined) {
      const [low, high] = STATUS_RANGES[filter.status];
      matching = matching.where('status', '>=', low).where('status', '<=', high);
    }
    // One after the other on the caller's Queryable: in a snapshot the page and the total agree.
    const rows = await matching
      .select([
        'platformId',
        'keyId',
        'at',
        'method',
        'path',
        'operation',
        'status',
        'latencyMs',
        'requestId',
      ])
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    const count = await matching.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst();
    return { items: rows, total: Number(count?.n ?? 0) };
  }

  async purge(q: Queryable, before: Date): Promise<number> {
    const { numDeletedRows } = await db(q)
      .deleteFrom('requestLog')
      .where('at', '<', before)
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }
}
