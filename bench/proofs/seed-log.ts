// Seeds the transparency log's tables in set-based SQL, so that 10 million entries take minutes
// rather than the hours of appending them one by one, and proves the seeded state is the state
// appending would have stored.
//
// The tables are @svc/transparency-log's (its migration 1): transparency_entries (one row per leaf),
// transparency_subtrees (the hash of every complete aligned subtree of 2^level leaves, level >= 1),
// transparency_state (the size). RFC 9162 §2.1.1: leaf = SHA-256(0x00 || entry), node =
// SHA-256(0x01 || left || right). PostgreSQL's sha256() computes both: the leaves from
// generate_series, then each level of subtrees from the level below (lead() pairs a left node with
// its right sibling in index order).
//
// The entries' constraints and indexes are dropped during the load and rebuilt from their own
// definitions afterwards (a btree built once over sorted input instead of 10 million random
// inserts); the definitions are read before and compared after, so the schema is unchanged.
import { performance } from 'node:perf_hooks';
import { rootOf, leafHash, type Hash } from '@svc/merkle-log';
import type { Database } from '@svc/storage';
import { canonicalJson, TransparencyLog } from '@svc/transparency-log';

/** The bytes of seeded entry `n`: canonical JSON, as a decision's entry is. */
export const seededEntry = (n: number): Buffer => canonicalJson({ decision: 'bench.seeded', n });
/** The same bytes in SQL, for `g` the entry's index (canonicalJson sorts keys: decision, n). */
const SQL_ENTRY = `convert_to('{"decision":"bench.seeded","n":' || g || '}', 'UTF8')`;
export const SEEDED_PARTIES = ['plat_bench'];
export const seededSource = (n: number): string => `seed_${n}`;

const CHUNK = 1_000_000;

interface Definitions {
  constraints: { name: string; definition: string }[];
  indexes: { name: string; definition: string }[];
}

/** The entries table's unique/primary constraints and its other indexes, as PostgreSQL prints them. */
async function definitionsOf(db: Database): Promise<Definitions> {
  const constraints = await db.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
     WHERE conrelid = 'transparency_entries'::regclass AND contype IN ('p', 'u') ORDER BY conname`,
  );
  const indexes = await db.query<{ name: string; definition: string }>(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
     WHERE x.indrelid = 'transparency_entries'::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)
     ORDER BY i.relname`,
  );
  return { constraints: constraints.rows, indexes: indexes.rows };
}

async function allIndexDefinitions(db: Database): Promise<string> {
  const { rows } = await db.query<{ def: string }>(
    `SELECT indexname || ': ' || indexdef AS def FROM pg_indexes
     WHERE tablename IN ('transparency_entries', 'transparency_subtrees') ORDER BY indexname`,
  );
  return rows.map((r) => r.def).join('\n');
}

/** One statement in its own transaction, with the session settings a bulk load wants. */
async function bulk(db: Database, sql: string, params: unknown[] = []): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query(`SET LOCAL maintenance_work_mem = '512MB'`);
    await tx.query(`SET LOCAL work_mem = '256MB'`);
    await tx.query('SET LOCAL synchronous_commit = off');
    const result = await tx.query(sql, params);
    return result.rowCount ?? 0;
  });
}

export interface SeedTimings {
  leavesSeconds: number;
  subtreesSeconds: number;
  indexesSeconds: number;
  totalSeconds: number;
  subtrees: number;
}

/**
 * Seeds entries 0..n-1 (`seededEntry(i)`, source `seed_i`) into an empty log. `progress` is told
 * each step as it ends.
 */
export async function seedLog(
  db: Database,
  n: number,
  progress: (line: string) => void = () => undefined,
): Promise<SeedTimings> {
  const size = await new TransparencyLog().size(db);
  if (size !== 0) throw new Error(`the log holds ${size} entries: seedLog fills an empty one`);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const before = await allIndexDefinitions(db);
  const defs = await definitionsOf(db);
  for (const c of defs.constraints)
    await db.query(`ALTER TABLE transparency_entries DROP CONSTRAINT ${c.name}`);
  for (const i of defs.indexes) await db.query(`DROP INDEX ${i.name}`);

  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK) - 1;
    await bulk(
      db,
      `INSERT INTO transparency_entries (idx, leaf_hash, entry, parties, source_id, appended_at)
       SELECT g, sha256('\\x00'::bytea || e), e, $3::text[], 'seed_' || g, now()
       FROM generate_series($1::bigint, $2::bigint) AS g, LATERAL (SELECT ${SQL_ENTRY} AS e) AS x`,
      [from, to, SEEDED_PARTIES],
    );
    if (n > CHUNK) progress(`${(to + 1).toLocaleString('en')} leaves (${seconds().toFixed(0)} s)`);
  }
  const leavesSeconds = seconds();
  // The primary key first: the level-1 subtrees read the leaves in index order through it.
  const primary = defs.constraints.filter((c) => c.definition.startsWith('PRIMARY KEY'));
  const others = defs.constraints.filter((c) => !c.definition.startsWith('PRIMARY KEY'));
  for (const c of primary)
    await bulk(db, `ALTER TABLE transparency_entries ADD CONSTRAINT ${c.name} ${c.definition}`);

  let subtrees = await bulk(
    db,
    `INSERT INTO transparency_subtrees (level, idx, hash)
     SELECT 1, idx / 2, sha256('\\x01'::bytea || hash || next)
     FROM (SELECT idx, leaf_hash AS hash, lead(leaf_hash) OVER (ORDER BY idx) AS next
           FROM transparency_entries) AS pairs
     WHERE idx % 2 = 0 AND next IS NOT NULL`,
  );
  for (let level = 2; 2 ** level <= n; level += 1) {
    subtrees += await bulk(
      db,
      `INSERT INTO transparency_subtrees (level, idx, hash)
       SELECT $1::smallint, idx / 2, sha256('\\x01'::bytea || hash || next)
       FROM (SELECT idx, hash, lead(hash) OVER (ORDER BY idx) AS next
             FROM transparency_subtrees WHERE level = $1::smallint - 1) AS pairs
       WHERE idx % 2 = 0 AND next IS NOT NULL`,
      [level],
    );
  }
  const subtreesSeconds = seconds() - leavesSeconds;
  if (n > CHUNK) progress(`${subtrees.toLocaleString('en')} subtrees (${seconds().toFixed(0)} s)`);

  for (const c of others)
    await bulk(db, `ALTER TABLE transparency_entries ADD CONSTRAINT ${c.name} ${c.definition}`);
  for (const i of defs.indexes) await bulk(db, i.definition);
  await db.query('UPDATE transparency_state SET size = $1 WHERE id = 1', [n]);
  await db.query('ANALYZE transparency_entries');
  await db.query('ANALYZE transparency_subtrees');
  const after = await allIndexDefinitions(db);
  if (after !== before) {
    throw new Error(`the seeded tables' indexes differ from the migration's:\n${before}\n---\n${after}`);
  }
  const totalSeconds = seconds();
  return {
    leavesSeconds,
    subtreesSeconds,
    indexesSeconds: totalSeconds - leavesSeconds - subtreesSeconds,
    totalSeconds,
    subtrees,
  };
}

interface Snapshot {
  entries: string[];
  subtrees: string[];
  root: Hash;
}

async function snapshot(db: Database, log: TransparencyLog): Promise<Snapshot> {
  const entries = await db.query<{ row: string }>(
    `SELECT idx || ' ' || encode(leaf_hash, 'hex') || ' ' || encode(entry, 'escape') || ' ' ||
            array_to_string(parties, ',') || ' ' || source_id AS row
     FROM transparency_entries ORDER BY idx`,
  );
  const subtrees = await db.query<{ row: string }>(
    `SELECT level || ' ' || idx || ' ' || encode(hash, 'hex') AS row FROM transparency_subtrees ORDER BY level, idx`,
  );
  return {
    entries: entries.rows.map((r) => r.row),
    subtrees: subtrees.rows.map((r) => r.row),
    root: (await log.rootAt(db)).rootHash,
  };
}

function firstDifference(a: string[], b: string[]): string | null {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i]) return `row ${i}: ${a[i] ?? '(none)'} vs ${b[i] ?? '(none)'}`;
  }
  return null;
}

export interface SeedCheck {
  size: number;
  root: string;
  entriesEqual: boolean;
  subtreesEqual: boolean;
  rootsEqual: boolean;
  /** The root merkle-log computes in memory from the same entries. */
  referenceRootEqual: boolean;
  difference: string | null;
}

/**
 * Seeds `n` entries in SQL into the empty log of `db`, takes every stored row and the root, empties
 * the log, appends the same entries one by one through TransparencyLog.append, and compares:
 * every entry row (all columns but appended_at), every subtree row, and the root, which must also
 * equal merkle-log's rootOf over the entries. Leaves the log empty.
 */
export async function checkSeedMatchesAppends(db: Database, n: number): Promise<SeedCheck> {
  const log = new TransparencyLog();
  await seedLog(db, n);
  const seeded = await snapshot(db, log);
  await db.query('TRUNCATE transparency_entries, transparency_subtrees');
  await db.query('UPDATE transparency_state SET size = 0 WHERE id = 1');
  const at = new Date();
  for (let i = 0; i < n; i += 1) {
    await db.transaction((tx) =>
      log.append(tx, { sourceId: seededSource(i), entry: seededEntry(i), parties: SEEDED_PARTIES, at }),
    );
  }
  const appended = await snapshot(db, log);
  await db.query('TRUNCATE transparency_entries, transparency_subtrees');
  await db.query('UPDATE transparency_state SET size = 0 WHERE id = 1');
  const reference = rootOf(Array.from({ length: n }, (_, i) => leafHash(seededEntry(i))));
  const entriesDiff = firstDifference(seeded.entries, appended.entries);
  const subtreesDiff = firstDifference(seeded.subtrees, appended.subtrees);
  return {
    size: n,
    root: seeded.root.toString('base64'),
    entriesEqual: entriesDiff === null && seeded.entries.length === n,
    subtreesEqual: subtreesDiff === null,
    rootsEqual: seeded.root.equals(appended.root),
    referenceRootEqual: seeded.root.equals(reference),
    difference: entriesDiff ?? subtreesDiff,
  };
}
