import pg from 'pg';
import { leafHash, subtreeOf } from '@svc/merkle-log';
import { topicMatches } from '@svc/messaging';
import { verifyTreeHead, type TreeHead } from '@svc/sdk';
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
  /** The gateway, for what licensing answers anyone (the transparency log's signed tree head). */
  gatewayUrl?: () => string;
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
  for (const row of await query<{ box_id: string; n: string; states: string; avatar: string }>(
    ctx.postgresUrl,
    db('enforcement'),
    `SELECT v.box_id, count(*) AS n,
            string_agg(v.status || coalesce('/' || v.resolution, '') || coalesce(' by ' || v.resolved_by, '') || ' at ' || v.detected_at::text, ', ' ORDER BY v.seq) AS states,
            min(json_build_object('revision', a.revision, 'created', a.created_at, 'answerAskedAt', a.answer_asked_at,
              'evaluation', a.evaluation, 'match', a.match)::text) AS avatar
       FROM violations AS v JOIN avatars AS a ON a.ref = v.avatar_ref
       WHERE v.box_id = ANY($1) GROUP BY v.box_id, v.avatar_ref HAVING count(*) > 1`,
    [boxes],
  )) {
    const identity = await query(
      ctx.postgresUrl,
      db('detection'),
      'SELECT change_seq, claim_version, removed, boxed_at, announced_box_ids FROM identities WHERE box_id = $1',
      [row.box_id],
    );
    twice(
      `${row.n} violations of one avatar on box ${row.box_id} (enforcement): ${row.states}; avatar ${row.avatar}; detection ${JSON.stringify(identity[0] ?? null)}`,
    );
  }
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

// The transparency log (docs/spec/contracts.md §16, issue #31): licensing appends one entry per
// decision announced in the owners' outboxes (source: the event id; `<id>:appeal` for the appeal
// half of a dismissal). Read independently of licensing's code: the expected sources per type.
const DECISION_SOURCES: Record<string, { decisions: string[]; suffixes: string[] }> = {
  'registry.box.created': { decisions: ['box.created'], suffixes: [''] },
  'registry.box.deleted': { decisions: ['box.removed'], suffixes: [''] },
  'licensing.license.activated': { decisions: ['license.activated'], suffixes: [''] },
  'licensing.license.renewed': { decisions: ['license.renewed'], suffixes: [''] },
  'licensing.license.revoked': { decisions: ['license.revoked'], suffixes: [''] },
  'licensing.license.cancelled': { decisions: ['license.cancelled'], suffixes: [''] },
  'licensing.license.expired': { decisions: ['license.lapsed'], suffixes: [''] },
  'enforcement.violation.created': { decisions: ['violation.opened'], suffixes: [''] },
  'enforcement.violation.resolved': { decisions: ['violation.resolved'], suffixes: [''] },
  'enforcement.violation.enforced': { decisions: ['violation.enforced'], suffixes: [''] },
  'enforcement.violation.dismissed': {
    decisions: ['appeal.decided', 'violation.dismissed'],
    suffixes: [':appeal', ''],
  },
  'enforcement.violation.reopened': { decisions: ['appeal.decided'], suffixes: [''] },
};

/** Decisions made once per subject: a second entry for the same one is a decision logged twice. */
const ONCE_PER_SUBJECT: Record<string, string> = {
  'box.created': 'boxId',
  'box.removed': 'boxId',
  'license.activated': 'licenseId',
  'violation.opened': 'violationId',
};

/** What one fault's run did to the log: its decisions, their entries, and what is off. */
export interface LogTally {
  /** Entries the decisions announced during the fault call for (a dismissal calls for two). */
  decisions: number;
  /** Entries appended during the fault. */
  entries: number;
  /** Decisions of the fault with no entry. */
  missing: number;
  /** Sources appended twice, once-only decisions logged twice, entries without a decision. */
  doubled: number;
  /** The size of the newest signed tree head, and whether every head matches the entries' root. */
  headSize: number | null;
  consistent: boolean;
}

interface LogEntryRow {
  idx: string;
  leaf_hash: Buffer;
  entry: Buffer;
  source_id: string;
}

/** Reads in one snapshot (REPEATABLE READ): entries, size and tree heads agree with each other. */
async function snapshot<T>(
  serverUrl: string,
  database: string,
  read: (q: <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>) => Promise<T>,
): Promise<T> {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await read(async (sql, params = []) => (await client.query(sql, params)).rows);
    await client.query('COMMIT');
    return result;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The log's size now (the first index a fault's decisions will take). */
export async function logSize(ctx: InsideContext): Promise<number> {
  const rows = await query<{ size: string }>(
    ctx.postgresUrl,
    databaseName(ctx.databasePrefix, 'licensing'),
    'SELECT size FROM transparency_state WHERE id = 1',
  );
  return Number(rows[0]?.size ?? 0);
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return body;
}

/**
 * The newest signed tree head as licensing answers it through the gateway (asking signs the log's
 * current size), with whether its signature is the log's (the key set of /.well-known/jwks.json).
 */
async function answeredHead(gatewayUrl: string): Promise<{ head: TreeHead; signed: boolean }> {
  const head = (await getJson(`${gatewayUrl}/v1/svc/transparency/tree-head`)).data as TreeHead;
  const keys = (await getJson(`${gatewayUrl}/.well-known/jwks.json`)) as unknown as Parameters<
    typeof verifyTreeHead
  >[1];
  return { head, signed: await verifyTreeHead(head, keys) };
}

/**
 * The transparency log against the decisions: every decision event in the owners' outboxes
 * (registry's boxes, licensing's licenses, enforcement's violations and appeals) has exactly its
 * entries, by source id; no source is appended twice and no once-only decision logged twice; no
 * entry lacks a decision; the leaves are numbered without a gap and hash to what the entries hold;
 * and the root recomputed from them (packages/merkle-log) is the root of every signed tree head,
 * the newest one answered through the gateway included, with a valid signature. Each chain of
 * the fault that got a box, a license or reported an avatar has its decision in the log.
 * `fromIndex` is the log's size when the fault began; `since` when it began.
 */
export async function transparencyLog(
  ctx: InsideContext,
  chains: Chain[],
  since: Date,
  fromIndex: number,
): Promise<{ findings: Finding[]; tally: LogTally }> {
  const findings: Finding[] = [];
  const lost = (what: string) => findings.push({ kind: 'lost', what });
  const twice = (what: string) => findings.push({ kind: 'doubled', what });
  const broken = (what: string) => findings.push({ kind: 'inconsistent', what });

  // The newest head first: the entries read after it hold at least its leaves.
  let answered: { head: TreeHead; signed: boolean } | undefined;
  if (ctx.gatewayUrl !== undefined) {
    try {
      answered = await answeredHead(ctx.gatewayUrl());
    } catch (err) {
      lost(`the transparency log's tree head was not answered: ${(err as Error).message}`);
    }
  }
  const log = await snapshot(ctx.postgresUrl, databaseName(ctx.databasePrefix, 'licensing'), async (q) => ({
    entries: await q<LogEntryRow>(
      'SELECT idx, leaf_hash, entry, source_id FROM transparency_entries ORDER BY idx',
    ),
    size: Number((await q<{ size: string }>('SELECT size FROM transparency_state WHERE id = 1'))[0]?.size),
    sources: await q<{ source_id: string; n: string }>(
      'SELECT source_id, count(*) AS n FROM transparency_entries GROUP BY source_id HAVING count(*) > 1',
    ),
    heads: await q<{ tree_size: string; root_hash: Buffer }>(
      'SELECT tree_size, root_hash FROM transparency_tree_heads ORDER BY tree_size',
    ),
  }));

  // The decisions, every one ever announced (entries must each have one); those of this fault.
  // Read after the entries: an entry appended in between has its event here (an event whose entry
  // came in between looks missing, and the next round finds it).
  const expected = new Map<string, { type: string; decision: string; recent: boolean }>();
  for (const service of ['registry', 'licensing', 'enforcement']) {
    const types = Object.keys(DECISION_SOURCES).filter((t) => t.startsWith(`${service}.`));
    const events = await query<{ event_id: string; type: string; recent: boolean }>(
      ctx.postgresUrl,
      databaseName(ctx.databasePrefix, service),
      'SELECT event_id, type, created_at >= $2 AS recent FROM outbox WHERE type = ANY($1)',
      [types, since],
    );
    for (const e of events) {
      const spec = DECISION_SOURCES[e.type];
      spec?.suffixes.forEach((suffix, i) =>
        expected.set(`${e.event_id}${suffix}`, {
          type: e.type,
          decision: spec.decisions[i] ?? '',
          recent: e.recent,
        }),
      );
    }
  }

  // The leaves: numbered 0..n-1, each the hash of its bytes, as many as the log's size says.
  const leaves: Buffer[] = [];
  for (const [i, row] of log.entries.entries()) {
    if (Number(row.idx) !== i) {
      broken(`the transparency log has no leaf ${i} (the next is ${row.idx})`);
      break;
    }
    if (!leafHash(row.entry).equals(row.leaf_hash))
      broken(`the transparency log's leaf ${i} (source ${row.source_id}) is not the hash of its entry`);
    leaves.push(row.leaf_hash);
  }
  if (log.size !== log.entries.length)
    broken(`the transparency log's size says ${log.size} but it holds ${log.entries.length} entries`);

  // Every signed head is the root of the leaves it covers; the answered one is the newest and signed.
  const mth = subtreeOf(leaves);
  const rootAt = (size: number) => (size <= leaves.length ? mth(0, size) : undefined);
  for (const head of log.heads) {
    const size = Number(head.tree_size);
    const root = rootAt(size);
    if (root === undefined || !root.equals(head.root_hash)) {
      broken(`the transparency log's tree head of size ${size} is not the root of its first ${size} entries`);
    }
  }
  let headSize: number | null = Number(log.heads.at(-1)?.tree_size ?? 0);
  if (answered !== undefined) {
    const { head, signed } = answered;
    headSize = head.treeSize;
    const root = rootAt(head.treeSize);
    if (root === undefined || root.toString('base64') !== head.rootHash) {
      broken(
        `the answered tree head of size ${head.treeSize} is not the root of the log's first ${head.treeSize} entries`,
      );
    }
    if (!signed) {
      broken(
        `the answered tree head of size ${head.treeSize} is not signed with a key of /.well-known/jwks.json`,
      );
    }
    // Asked before the entries were read: it covers them all unless one was appended in between.
    if (head.treeSize < leaves.length)
      lost(`the newest tree head covers ${head.treeSize} of the log's ${leaves.length} entries`);
  }

  // Entries against decisions.
  const appended = new Map<string, number>();
  const ofFault = new Set<string>();
  const decisionOf = new Map<
    string,
    { decision: string; subject: Record<string, string>; eventId: string }
  >();
  for (const row of log.entries) {
    appended.set(row.source_id, (appended.get(row.source_id) ?? 0) + 1);
    if (Number(row.idx) >= fromIndex) ofFault.add(row.source_id);
    try {
      decisionOf.set(row.source_id, JSON.parse(row.entry.toString('utf8')));
    } catch {
      broken(`the transparency log's entry ${row.idx} (source ${row.source_id}) is not JSON`);
    }
  }
  let doubled = 0;
  // Counted twice over: the table's own counts and the rows read (its uniqueness forbids either).
  for (const { source_id, n } of log.sources) {
    if (ofFault.has(source_id)) doubled += 1;
    twice(`${n} transparency log entries of source ${source_id}`);
  }
  for (const [source, n] of appended)
    if (n > 1 && !log.sources.some((s) => s.source_id === source)) {
      if (ofFault.has(source)) doubled += 1;
      twice(`${n} transparency log entries read of source ${source}`);
    }

  const missingByType = new Map<string, string[]>();
  let decisions = 0;
  for (const [source, e] of expected) {
    if (!e.recent) continue;
    decisions += 1;
    if (!appended.has(source)) missingByType.set(e.type, [...(missingByType.get(e.type) ?? []), source]);
  }
  let missing = 0;
  for (const [type, sources] of missingByType) {
    missing += sources.length;
    lost(`${sources.length} ${type} decisions not in the transparency log (e.g. source ${sources[0]})`);
  }

  const once = new Map<string, string[]>();
  const bySubject = new Set<string>();
  for (const [source, entry] of decisionOf) {
    for (const [key, value] of Object.entries(entry.subject ?? {}))
      bySubject.add(`${entry.decision} ${key}=${value}`);
    const e = expected.get(source);
    if (e === undefined) {
      if (ofFault.has(source)) doubled += 1;
      twice(`a transparency log entry without a decision: ${entry.decision} from source ${source}`);
    } else if (entry.decision !== e.decision || entry.eventId !== source.replace(/:appeal$/, ''))
      broken(
        `the transparency log's entry of source ${source} says ${entry.decision} (event ${entry.eventId}), its event ${e.type}`,
      );
    const key = ONCE_PER_SUBJECT[entry.decision];
    const subject = key === undefined ? undefined : entry.subject?.[key];
    if (subject !== undefined) {
      const k = `${entry.decision} ${subject}`;
      once.set(k, [...(once.get(k) ?? []), source]);
    }
  }
  for (const [k, sources] of once)
    if (sources.length > 1) {
      if (sources.some((s) => ofFault.has(s))) doubled += 1;
      twice(
        `${sources.length} transparency log entries of one decision, ${k} (sources ${sources.join(', ')})`,
      );
    }

  // What the workload made must be in the log: its chains' boxes, licenses and violations.
  const logged = (decision: string, key: string, value: string | undefined) =>
    value !== undefined && bySubject.has(`${decision} ${key}=${value}`);
  for (const c of chains) {
    if (c.boxId !== undefined && !logged('box.created', 'boxId', c.boxId))
      lost(`chain ${c.no}: box ${c.boxId} has no box.created entry in the transparency log`);
    if (c.licenseId !== undefined && !logged('license.activated', 'licenseId', c.licenseId))
      lost(`chain ${c.no}: license ${c.licenseId} has no license.activated entry in the transparency log`);
    if (c.avatarReported === true && !logged('violation.opened', 'boxId', c.boxId))
      lost(
        `chain ${c.no}: the violation of avatar ${c.avatarId} on box ${c.boxId} has no violation.opened entry in the transparency log`,
      );
  }
  const entries = log.entries.filter((r) => Number(r.idx) >= fromIndex).length;
  const consistent = !findings.some((f) => f.kind === 'inconsistent');
  return { findings, tally: { decisions, entries, missing, doubled, headSize, consistent } };
}

/**
 * Why an avatar of a boxed identity has no violation, from the databases: the avatar's row in
 * enforcement (its seq, evaluation and when its newest answer was asked), the box's initial scan
 * (cursor, attempts, last error) and detection's projection of the identity (its change and
 * whether the box was announced). One line, for the report of a lost chain.
 */
export async function whyNoViolation(ctx: InsideContext, avatarId: string, boxId: string): Promise<string> {
  const enforcement = databaseName(ctx.databasePrefix, 'enforcement');
  const detection = databaseName(ctx.databasePrefix, 'detection');
  const [avatars, scans, identities] = await Promise.all([
    query(
      ctx.postgresUrl,
      enforcement,
      `SELECT seq, evaluation, evaluation_attempts, answer_asked_at, last_evaluation_error, created_at, updated_at
         FROM avatars WHERE avatar_id = $1`,
      [avatarId],
    ),
    query(
      ctx.postgresUrl,
      enforcement,
      `SELECT status, cursor_seq, avatars_scanned, violations_created, attempts, next_attempt_at,
              last_error, started_at, completed_at
         FROM box_scans WHERE box_id = $1`,
      [boxId],
    ),
    query(
      ctx.postgresUrl,
      detection,
      `SELECT change_seq, box_id, boxed_at, box_announcement_due, announced_box_ids, removed
         FROM identities WHERE box_id = $1`,
      [boxId],
    ),
  ]);
  const show = (rows: pg.QueryResultRow[]) => (rows.length === 0 ? 'none' : JSON.stringify(rows[0]));
  return `avatar ${show(avatars)}; scan ${show(scans)}; detection ${show(identities)}`;
}

/**
 * For a webhook delivered again after a 200, the dispatcher's record of its delivery: each attempt
 * with its outcome, status, error and duration, so that a failure in CI explains itself.
 */
export async function whyDeliveredTwice(ctx: InsideContext, eventId: string): Promise<string> {
  const dispatcher = databaseName(ctx.databasePrefix, 'webhook-dispatcher');
  const rows = await query(
    ctx.postgresUrl,
    dispatcher,
    `SELECT d.status, d.attempt_count, a.number, a.outcome, a.response_status, a.error, a.duration_ms,
            a.attempted_at
       FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
      WHERE d.event_id = $1 ORDER BY a.number`,
    [eventId],
  );
  return rows.length === 0 ? 'no delivery' : rows.map((row) => JSON.stringify(row)).join('; ');
}
