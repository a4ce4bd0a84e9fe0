// The transparency log at scale (issue #31, docs/spec/contracts.md §16): an inclusion proof at 10 million
// entries answers in <= 5 ms p99, and appending keeps up with decisions. The log is bulk-loaded in
// SQL (leaf and subtree hashes computed by PostgreSQL's sha256 with RFC 9162's prefixes, as the
// package would have stored them), then entries are appended through the package on top, and every
// measured proof is checked against the signed root. Baseline in the same run: a primary-key SELECT
// of one entry (the floor of any answer from this database).
// BENCH_LOG_ENTRIES (default 10,000,000), BENCH_PROOFS (default 2,000).
import { performance } from 'node:perf_hooks';
import { verifyConsistency, verifyInclusion } from '@svc/merkle-log';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase } from '@svc/test-kit';
import { canonicalJson, TransparencyLog, transparencyLogMigrations } from '@svc/transparency-log';

const ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 10_000_000);
const PROOFS = Number(process.env.BENCH_PROOFS ?? 2_000);
const APPENDS = 2_000;
const GOAL_P99_MS = 5;
const CHUNK = 1_000_000;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function timed(n: number, step: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const start = performance.now();
    await step(i);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

async function bulkLoad(db: Database, n: number): Promise<void> {
  const started = performance.now();
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK) - 1;
    await db.query(
      `INSERT INTO transparency_entries (idx, leaf_hash, entry, parties, source_id, appended_at)
       SELECT g, sha256('\\x00'::bytea || convert_to('entry ' || g, 'UTF8')), convert_to('entry ' || g, 'UTF8'),
              ARRAY['plat_bench'], 'bulk_' || g, now()
       FROM generate_series($1::bigint, $2::bigint) AS g`,
      [from, to],
    );
    process.stdout.write(
      `  loaded ${to + 1} leaves (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
    );
  }
  await db.query(
    `INSERT INTO transparency_subtrees (level, idx, hash)
     SELECT 1, l.idx / 2, sha256('\\x01'::bytea || l.leaf_hash || r.leaf_hash)
     FROM transparency_entries l JOIN transparency_entries r ON r.idx = l.idx + 1
     WHERE l.idx % 2 = 0`,
  );
  for (let level = 2; 2 ** level <= n; level += 1) {
    await db.query(
      `INSERT INTO transparency_subtrees (level, idx, hash)
       SELECT $1::smallint, l.idx / 2, sha256('\\x01'::bytea || l.hash || r.hash)
       FROM transparency_subtrees l JOIN transparency_subtrees r ON r.level = l.level AND r.idx = l.idx + 1
       WHERE l.level = $1::smallint - 1 AND l.idx % 2 = 0`,
      [level],
    );
  }
  await db.query('UPDATE transparency_state SET size = $1 WHERE id = 1', [n]);
  await db.query('ANALYZE');
  process.stdout.write(`  subtrees built (${((performance.now() - started) / 1000).toFixed(0)} s in all)\n`);
}

async function main(): Promise<void> {
  const database = await freshPostgresDatabase('bench_log');
  const db = await createDatabase({ url: database.url });
  const log = new TransparencyLog();
  try {
    await runMigrations(db, [transparencyLogMigrations]);
    console.log(
      `Transparency log: ${ENTRIES.toLocaleString('en')} entries bulk-loaded, then ${APPENDS} appended`,
    );
    await bulkLoad(db, ENTRIES);

    const appends = await timed(APPENDS, async (i) => {
      await db.transaction((tx) =>
        log.append(tx, {
          sourceId: `evt_${i}`,
          entry: canonicalJson({ decision: 'violation.opened', violationId: `viol_${i}` }),
          parties: ['plat_a', 'plat_b'],
          at: new Date(),
        }),
      );
    });
    const insertOnly = await timed(APPENDS, async (i) => {
      await db.transaction((tx) =>
        tx.query(
          'INSERT INTO transparency_tree_heads (tree_size, root_hash, signed_at, signature) VALUES ($1, $2, now(), $3)',
          [-1 - i, Buffer.alloc(32), 'baseline'],
        ),
      );
    });
    await db.query('DELETE FROM transparency_tree_heads WHERE tree_size < 0');
    const size = await log.size(db);
    const { rootHash } = await log.rootAt(db, size);

    const pick = (i: number) => Math.floor((((i * 2654435761) % 4294967296) / 4294967296) * size);
    const leafOf = async (index: number) => (await log.entry(db, index))?.leafHash ?? Buffer.alloc(32);
    const leaves = await Promise.all(Array.from({ length: PROOFS }, (_, i) => leafOf(pick(i))));
    let wrong = 0;
    const inclusion = await timed(PROOFS, async (i) => {
      const leaf = leaves[i] as Buffer;
      const index = await log.find(db, leaf, size);
      const proof = await log.inclusionProof(db, index ?? 0, size);
      if (index === null || !verifyInclusion(index, size, leaf, proof, rootHash)) wrong += 1;
    });
    const firstRoots = new Map<number, Buffer>();
    const firsts = Array.from({ length: 50 }, (_, i) => 1 + pick(i + 7));
    for (const first of firsts) firstRoots.set(first, (await log.rootAt(db, first)).rootHash);
    const consistency = await timed(PROOFS, async (i) => {
      const first = firsts[i % firsts.length] as number;
      const proof = await log.consistencyProof(db, first, size);
      if (!verifyConsistency(first, size, proof, firstRoots.get(first) as Buffer, rootHash)) wrong += 1;
    });
    const baseline = await timed(PROOFS, async (i) => {
      await db.query('SELECT idx, leaf_hash FROM transparency_entries WHERE idx = $1', [pick(i)]);
    });

    const row = (name: string, t: number[]) =>
      `  ${name.padEnd(44)} p50 ${percentile(t, 50).toFixed(2)} ms  p99 ${percentile(t, 99).toFixed(2)} ms`;
    console.log(row('baseline: one entry by primary key', baseline));
    console.log(row(`inclusion proof (find + path) at ${size.toLocaleString('en')}`, inclusion));
    console.log(row('consistency proof', consistency));
    console.log(row('append (own transaction)', appends));
    console.log(row('baseline: one-row INSERT transaction', insertOnly));
    const appendRate = 1000 / percentile(appends, 50);
    console.log(
      `  appends ${appendRate.toFixed(0)}/s sequentially (p50); a one-row INSERT transaction ${(1000 / percentile(insertOnly, 50)).toFixed(0)}/s`,
    );
    console.log(`  proofs that did not verify against the root: ${wrong}`);
    const p99 = percentile(inclusion, 99);
    console.log(
      `inclusion proof p99 ${p99.toFixed(2)} ms at ${size.toLocaleString('en')} entries (baseline p99 ${percentile(baseline, 99).toFixed(2)} ms), goal <= ${GOAL_P99_MS} ms: ${p99 <= GOAL_P99_MS && wrong === 0 ? 'PASS' : 'MISS'}`,
    );
  } finally {
    await db.close();
    await database.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
