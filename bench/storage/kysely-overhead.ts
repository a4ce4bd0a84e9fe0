// Kysely's per-query cost over our Queryable (ADR 0017): the same SELECT and INSERT built with
// kyselyOn(q) versus hand-written SQL on q.query, on a Queryable that answers at once (the
// builder's own cost, free of database noise) and on an in-memory PGlite (what a repository sees).
// Goal (issue #16): tens of microseconds at most on top of the raw path, i.e. under 100 µs; a
// PGlite round trip alone is 0.5 to 6 ms.
import { performance } from 'node:perf_hooks';
import { createDatabase, jsonb, kyselyOn, type Jsonb, type QueryResult, type Queryable } from '@svc/storage';

interface BenchDb {
  claims: {
    id: string;
    ownerPlatformId: string;
    status: string;
    variations: Jsonb<string[]>;
    createdAt: Date;
  };
}

const GOAL_US = 100;

class InstantQueryable implements Queryable {
  async query<R extends object>(): Promise<QueryResult<R>> {
    return { rows: [], rowCount: 0 };
  }
  async exec(): Promise<void> {}
}

type Step = (q: Queryable, i: number) => Promise<unknown>;

const raw: Record<'select' | 'insert', Step> = {
  select: (q, i) =>
    q.query(
      `SELECT id, owner_platform_id, status, variations, created_at FROM claims
       WHERE owner_platform_id = $1 AND status = $2 ORDER BY created_at DESC LIMIT $3`,
      [`plt_${i % 10}`, 'verified', 20],
    ),
  insert: (q, i) =>
    q.query(
      `INSERT INTO claims (id, owner_platform_id, status, variations, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)`,
      [`clm_${i}`, `plt_${i % 10}`, 'verified', JSON.stringify(['a']), new Date()],
    ),
};

const viaKysely: Record<'select' | 'insert', Step> = {
  select: (q, i) =>
    kyselyOn<BenchDb>(q)
      .selectFrom('claims')
      .select(['id', 'ownerPlatformId', 'status', 'variations', 'createdAt'])
      .where('ownerPlatformId', '=', `plt_${i % 10}`)
      .where('status', '=', 'verified')
      .orderBy('createdAt', 'desc')
      .limit(20)
      .execute(),
  insert: (q, i) =>
    kyselyOn<BenchDb>(q)
      .insertInto('claims')
      .values({
        id: `clm_${i}`,
        ownerPlatformId: `plt_${i % 10}`,
        status: 'verified',
        variations: jsonb(['a']),
        createdAt: new Date(),
      })
      .execute(),
};

/** Mean microseconds per call of `step` over `n` calls, after a warm-up. */
async function timePerCall(
  n: number,
  step: (i: number) => Promise<unknown>,
  offset: number,
): Promise<number> {
  for (let i = 0; i < Math.min(n, 2000); i++) await step(offset + i);
  const start = performance.now();
  for (let i = 0; i < n; i++) await step(offset + n + i);
  return ((performance.now() - start) * 1000) / n;
}

async function main(): Promise<number> {
  const lines: { name: string; rawUs: number; kyselyUs: number; overheadUs: number }[] = [];
  const instant = new InstantQueryable();
  for (const kind of ['select', 'insert'] as const) {
    const rawUs = await timePerCall(50_000, (i) => raw[kind](instant, i), 0);
    const kyselyUs = await timePerCall(50_000, (i) => viaKysely[kind](instant, i), 0);
    lines.push({ name: `${kind}, instant Queryable`, rawUs, kyselyUs, overheadUs: kyselyUs - rawUs });
  }
  // A new Queryable per query, as a transaction per request gives: the builder is created each time.
  {
    const rawUs = await timePerCall(20_000, (i) => raw.select(new InstantQueryable(), i), 0);
    const kyselyUs = await timePerCall(20_000, (i) => viaKysely.select(new InstantQueryable(), i), 0);
    lines.push({ name: 'select, new Queryable each', rawUs, kyselyUs, overheadUs: kyselyUs - rawUs });
  }
  const db = await createDatabase({ url: 'pglite://memory' });
  try {
    await db.exec(`CREATE TABLE claims (id text PRIMARY KEY, owner_platform_id text NOT NULL, status text NOT NULL,
      variations jsonb NOT NULL, created_at timestamptz NOT NULL)`);
    // Disjoint ids per run so the inserts never collide.
    const rawInsert = await timePerCall(3000, (i) => raw.insert(db, i), 0);
    const kyselyInsert = await timePerCall(3000, (i) => viaKysely.insert(db, i), 100_000);
    lines.push({
      name: 'insert, PGlite',
      rawUs: rawInsert,
      kyselyUs: kyselyInsert,
      overheadUs: kyselyInsert - rawInsert,
    });
    const rawSelect = await timePerCall(500, (i) => raw.select(db, i), 0);
    const kyselySelect = await timePerCall(500, (i) => viaKysely.select(db, i), 0);
    lines.push({
      name: 'select, PGlite',
      rawUs: rawSelect,
      kyselyUs: kyselySelect,
      overheadUs: kyselySelect - rawSelect,
    });
  } finally {
    await db.close();
  }

  console.log('Kysely over Queryable: mean µs per query (raw q.query = same-run baseline)');
  for (const line of lines) {
    console.log(
      `  ${line.name.padEnd(28)} raw ${line.rawUs.toFixed(1).padStart(7)}  kysely ${line.kyselyUs
        .toFixed(1)
        .padStart(7)}  overhead ${line.overheadUs.toFixed(1).padStart(6)} µs`,
    );
  }
  // The builder's own cost is measured where the database adds no noise.
  const worst = Math.max(...lines.filter((l) => l.name.includes('Queryable')).map((l) => l.overheadUs));
  const pass = worst <= GOAL_US;
  console.log(
    `worst builder overhead ${worst.toFixed(1)} µs, goal <= ${GOAL_US} µs: ${pass ? 'PASS' : 'MISS'}`,
  );
  console.log(
    JSON.stringify({ bench: 'kysely-overhead', worstOverheadUs: worst, goalUs: GOAL_US, pass, lines }),
  );
  // A missed goal is reported, not an error (bench/README.md).
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
