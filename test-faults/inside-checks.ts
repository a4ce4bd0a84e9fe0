import pg from 'pg';
import { topicMatches } from '@svc/messaging';
import type { PrivateRabbitMQ } from '@svc/test-kit';
import type { Finding } from './outside-checks';
import type { Chain } from './workload';

// What the suite sees inside: the services' own databases on the suite's PostgreSQL and the
// queues of its RabbitMQ node. No duplicate entity or ledger row; every outbox row sent; every
// event processed by every consumer bound to it; queues drained; dead-letter queues empty.

export const SERVICES = [
  'gateway',
  'registry',
  'detection',
  'licensing',
  'enforcement',
  'billing',
  'webhook-dispatcher',
] as const;

/** The database of a service in the suite's cluster. */
export function databaseName(prefix: string, service: string): string {
  return `${prefix}${service.replace(/-/g, '_')}`;
}

async function query<R extends pg.QueryResultRow>(
  serverUrl: string,
  database: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface InsideContext {
  postgresUrl: string;
  databasePrefix: string;
  broker: PrivateRabbitMQ;
}

/** Duplicates among the rows the chains created, by the natural key of each entity. */
export async function duplicateRows(ctx: InsideContext, chains: Chain[]): Promise<Finding[]> {
  const found: Finding[] = [];
  const db = (service: string) => databaseName(ctx.databasePrefix, service);
  const names = chains.filter((c) => c.claimId !== undefined).map((c) => c.name);
  const boxes = chains.flatMap((c) => (c.boxId === undefined ? [] : [c.boxId]));
  const licenses = chains.flatMap((c) => (c.licenseId === undefined ? [] : [c.licenseId]));
  const twice = (what: string) => found.push({ kind: 'doubled', what });

  for (const row of await query<{ name: string; n: string }>(
    ctx.postgresUrl,
    db('registry'),
    'SELECT name, count(*) AS n FROM claims WHERE name = ANY($1) GROUP BY name HAVING count(*) > 1',
    [names],
  ))
    twice(`${row.n} claims named ${row.name} (registry)`);
  for (const table of ['license_requests', 'licenses'])
    for (const row of await query<{ box_id: string; n: string }>(
      ctx.postgresUrl,
      db('licensing'),
      `SELECT box_id, count(*) AS n FROM ${table} WHERE box_id = ANY($1) GROUP BY box_id, licensee_platform_id HAVING count(*) > 1`,
      [boxes],
    ))
      twice(`${row.n} ${table} of one licensee on box ${row.box_id} (licensing)`);
  // Each violation's status and resolution are named, so a doubled one tells how it came about.
  for (const row of await query<{ box_id: string; n: string; states: string }>(
    ctx.postgresUrl,
    db('enforcement'),
    `SELECT box_id, count(*) AS n,
            string_agg(status || coalesce('/' || resolution, '') || coalesce(' by ' || resolved_by, '') || ' at ' || detected_at::text, ', ' ORDER BY seq) AS states
       FROM violations WHERE box_id = ANY($1) GROUP BY box_id, avatar_ref HAVING count(*) > 1`,
    [boxes],
  ))
    twice(`${row.n} violations of one avatar on box ${row.box_id} (enforcement): ${row.states}`);
  for (const row of await query<{ license_id: string; n: string }>(
    ctx.postgresUrl,
    db('billing'),
    'SELECT license_id, count(*) AS n FROM usage_reports WHERE license_id = ANY($1) GROUP BY license_id, period HAVING count(*) > 1',
    [licenses],
  ))
    twice(`${row.n} usage reports of ${row.license_id} for one period, reported once (billing)`);
  for (const row of await query<{ license_id: string; n: string }>(
    ctx.postgresUrl,
    db('billing'),
    'SELECT license_id, count(*) AS n FROM ledger_entries WHERE license_id = ANY($1) GROUP BY license_id HAVING count(*) > 1',
    [licenses],
  ))
    twice(`${row.n} ledger entries of ${row.license_id} for one report (billing)`);
  return found;
}

/** Webhook deliveries that are not (yet) succeeded: pending ones are still retrying, failed ones lost. */
export async function undeliveredWebhooks(ctx: InsideContext, since: Date): Promise<Finding[]> {
  const rows = await query<{ status: string; event_type: string; n: string }>(
    ctx.postgresUrl,
    databaseName(ctx.databasePrefix, 'webhook-dispatcher'),
    `SELECT status, event_type, count(*) AS n FROM webhook_deliveries
     WHERE status <> 'succeeded' AND NOT test AND created_at >= $1
     GROUP BY status, event_type ORDER BY status, event_type`,
    [since],
  );
  return rows.map((r) => ({ kind: 'lost', what: `${r.n} ${r.event_type} webhook deliveries ${r.status}` }));
}

/** Outbox rows not sent, events a bound consumer never processed, queues not drained, dead letters. */
export async function deliveryPipeline(
  ctx: InsideContext,
  since: Date,
): Promise<{ findings: Finding[]; deadLetters: Map<string, number> }> {
  const findings: Finding[] = [];
  const outboxes = new Map<string, { event_id: string; type: string }[]>();
  for (const service of SERVICES) {
    const db = databaseName(ctx.databasePrefix, service);
    const unsent = await query<{ n: string }>(
      ctx.postgresUrl,
      db,
      'SELECT count(*) AS n FROM outbox WHERE published_at IS NULL AND created_at >= $1',
      [since],
    ).catch(() => [{ n: '0' }]);
    if (Number(unsent[0]?.n ?? 0) > 0)
      findings.push({ kind: 'lost', what: `${unsent[0]?.n} outbox rows of ${service} never sent` });
    outboxes.set(
      service,
      await query<{ event_id: string; type: string }>(
        ctx.postgresUrl,
        db,
        'SELECT event_id, type FROM outbox WHERE created_at >= $1',
        [since],
      ).catch(() => []),
    );
  }
  const events = [...outboxes.values()].flat();
  const bindings = await ctx.broker.bindings('svc.events');
  const byQueue = new Map<string, string[]>();
  for (const b of bindings) {
    const service = SERVICES.find((s) => b.queue.startsWith(`${s}.`));
    if (service === undefined) continue; // a test's own queue
    byQueue.set(b.queue, [...(byQueue.get(b.queue) ?? []), b.routingKey]);
  }
  for (const [queue, patterns] of byQueue) {
    const service = SERVICES.find((s) => queue.startsWith(`${s}.`)) ?? '';
    const expected = events.filter((e) => patterns.some((p) => topicMatches(p, e.type)));
    if (expected.length === 0) continue;
    const processed = new Set(
      (
        await query<{ event_id: string }>(
          ctx.postgresUrl,
          databaseName(ctx.databasePrefix, service),
          'SELECT event_id FROM processed_messages WHERE consumer = $1',
          [queue],
        ).catch(() => [])
      ).map((r) => r.event_id),
    );
    const missing = expected.filter((e) => !processed.has(e.event_id));
    if (missing.length > 0) {
      const types = [...new Set(missing.map((e) => e.type))].join(', ');
      findings.push({
        kind: 'lost',
        what: `${missing.length} events (${types}) never processed by ${queue}`,
      });
    }
  }
  const deadLetters = new Map<string, number>();
  for (const q of await ctx.broker.queues()) {
    if (!SERVICES.some((s) => q.name.startsWith(`${s}.`))) continue;
    if (q.name.endsWith('.dlq')) deadLetters.set(q.name, q.messages);
    else if (q.messages > 0)
      findings.push({ kind: 'lost', what: `queue ${q.name} holds ${q.messages} messages` });
  }
  return { findings, deadLetters };
}
