import { freshPostgresDatabase } from '@svc/test-kit';
import type { Generated, Kysely } from 'kysely';
import {
  createDatabase,
  executeNamed,
  jsonb,
  kyselyOn,
  preparedStatement,
  runWithTransactionHook,
  type Database,
  type Jsonb,
  type Queryable,
} from '../../src';

interface TestDb {
  claims: {
    id: string;
    seq: Generated<number>;
    ownerName: string;
    tags: Jsonb<string[]>;
    createdAt: Date;
  };
  audit: { id: Generated<number>; what: string };
}

const SCHEMA = `
  CREATE TABLE claims (id text PRIMARY KEY, seq bigserial NOT NULL, owner_name text NOT NULL,
    tags jsonb NOT NULL DEFAULT '[]', created_at timestamptz NOT NULL);
  CREATE TABLE audit (id bigserial PRIMARY KEY, what text NOT NULL);`;

const engines: [string, () => Promise<{ db: Database; drop(): Promise<void> }>][] = [
  [
    'PGlite',
    async () => {
      const db = await createDatabase({ url: 'pglite://memory' });
      return { db, drop: () => db.close() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const fresh = await freshPostgresDatabase('storage_kysely');
      const db = await createDatabase({ url: fresh.url, maxConnections: 2 });
      return {
        db,
        drop: async () => {
          await db.close();
          await fresh.drop();
        },
      };
    },
  ],
];

describe.each(engines)('Kysely over a Queryable on %s', (_engine, open) => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await open());
    await db.exec(SCHEMA);
  });

  beforeEach(async () => {
    await db.exec('TRUNCATE claims, audit RESTART IDENTITY');
  });

  afterAll(async () => {
    await drop();
  });

  it('when a row is written and read with camelCase names, then SQL sees snake_case and values round-trip', async () => {
    const createdAt = new Date('2026-01-02T03:04:05.678Z');
    await kyselyOn<TestDb>(db)
      .insertInto('claims')
      .values({ id: 'c1', ownerName: 'Ada', tags: jsonb(['a', 'b']), createdAt })
      .execute();

    const row = await kyselyOn<TestDb>(db)
      .selectFrom('claims')
      .selectAll()
      .where('id', '=', 'c1')
      .executeTakeFirstOrThrow();
    const raw = await db.query('SELECT owner_name FROM claims');

    expect(row).toEqual({ id: 'c1', seq: 1, ownerName: 'Ada', tags: ['a', 'b'], createdAt });
    expect(raw.rows).toEqual([{ owner_name: 'Ada' }]);
  });

  it('when jsonb holds objects with snake_case keys, then the keys are kept as written', async () => {
    await kyselyOn<TestDb>(db)
      .insertInto('claims')
      .values({ id: 'c1', ownerName: 'Ada', tags: jsonb([]), createdAt: new Date() })
      .execute();
    await db.query(`UPDATE claims SET tags = '[{"max_days": 3}]'::jsonb`);

    const row = await kyselyOn<TestDb>(db).selectFrom('claims').select('tags').executeTakeFirstOrThrow();

    expect(row.tags).toEqual([{ max_days: 3 }]);
  });

  it('when an update or delete runs, then it reports the rows it touched', async () => {
    const k = kyselyOn<TestDb>(db);
    await k
      .insertInto('claims')
      .values([
        { id: 'c1', ownerName: 'Ada', tags: jsonb([]), createdAt: new Date() },
        { id: 'c2', ownerName: 'Bo', tags: jsonb([]), createdAt: new Date() },
      ])
      .execute();

    const updated = await k.updateTable('claims').set({ ownerName: 'Cy' }).executeTakeFirst();
    const deleted = await k.deleteFrom('claims').where('id', '=', 'c1').executeTakeFirst();

    expect(updated.numUpdatedRows).toBe(2n);
    expect(deleted.numDeletedRows).toBe(1n);
  });

  it('when a transaction of ours throws, then the Kysely writes made through its tx roll back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await kyselyOn<TestDb>(tx).insertInto('audit').values({ what: 'lost' }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');

    const rows = await kyselyOn<TestDb>(db).selectFrom('audit').selectAll().execute();
    expect(rows).toEqual([]);
  });

  it('when Kysely is asked to open a transaction itself, then it refuses and points to ours', async () => {
    await expect(
      kyselyOn<TestDb>(db)
        .transaction()
        .execute(async () => undefined),
    ).rejects.toThrow('Database.transaction');
  });

  it('when a hooked request writes through Kysely outside a transaction, then the hook commits with it', async () => {
    const enlisted: Queryable[] = [];
    await runWithTransactionHook(
      {
        db,
        enlist: async (tx) => {
          enlisted.push(tx);
          await tx.query(`INSERT INTO audit (what) VALUES ('hook')`);
        },
        isActive: () => true,
      },
      () => kyselyOn<TestDb>(db).insertInto('audit').values({ what: 'effect' }).execute(),
    );

    const rows = await kyselyOn<TestDb>(db).selectFrom('audit').select('what').orderBy('id').execute();
    expect(enlisted).toHaveLength(1);
    expect(rows.map((r) => r.what)).toEqual(['hook', 'effect']);
  });

  it('when a query runs as a named statement, then the Queryable gets the name and camelCase rows come back', async () => {
    const names: (string | undefined)[] = [];
    const spy: Queryable = {
      query: (text, params, options) => {
        names.push(options?.name);
        return db.query(text, params, options);
      },
      exec: (text) => db.exec(text),
    };
    const k = kyselyOn<TestDb>(spy);
    const insert = () =>
      k
        .insertInto('claims')
        .values({ id: 'c1', ownerName: 'Ada', tags: jsonb([]), createdAt: new Date() })
        .onConflict((conflict) => conflict.column('id').doNothing());

    const first = await executeNamed(spy, 'test_insert_claim', insert());
    const again = await executeNamed(spy, 'test_insert_claim', insert());
    const { rows } = await executeNamed(
      spy,
      'test_claim_owner',
      k.selectFrom('claims').select(['id', 'ownerName']).where('id', '=', 'c1'),
    );
    await k.selectFrom('claims').select('id').execute();

    expect([first.numAffectedRows, again.numAffectedRows]).toEqual([1, 0]);
    expect(rows).toEqual([{ id: 'c1', ownerName: 'Ada' }]);
    expect(names).toEqual(['test_insert_claim', 'test_insert_claim', 'test_claim_owner', undefined]);
  });

  it('when the same Queryable is used twice, then the same builder is reused', () => {
    expect(kyselyOn<TestDb>(db)).toBe(kyselyOn<TestDb>(db));
  });

  it('when a prepared statement runs twice, then each run has its own values and the fixed ones stay', async () => {
    const byOwner = preparedStatement(
      `kysely_test_by_owner_${_engine}`,
      (k: Kysely<TestDb>, input: { ownerName: string; after: Date }) =>
        k
          .selectFrom('claims')
          .select(['id', 'ownerName'])
          .where('ownerName', '=', input.ownerName)
          .where('createdAt', '>', input.after)
          .where('id', '<>', 'never')
          .orderBy('id'),
    );
    await kyselyOn<TestDb>(db)
      .insertInto('claims')
      .values([
        { id: 'p1', ownerName: 'prep-a', tags: jsonb([]), createdAt: new Date('2026-01-02T00:00:00Z') },
        { id: 'p2', ownerName: 'prep-b', tags: jsonb([]), createdAt: new Date('2026-01-03T00:00:00Z') },
      ])
      .execute();
    const after = new Date('2026-01-01T00:00:00Z');

    const first = await byOwner(db, { ownerName: 'prep-a', after });
    const second = await byOwner(db, { ownerName: 'prep-b', after });
    const none = await byOwner(db, { ownerName: 'prep-b', after: new Date('2026-01-04T00:00:00Z') });

    expect(first.rows).toEqual([{ id: 'p1', ownerName: 'prep-a' }]);
    expect(second.rows).toEqual([{ id: 'p2', ownerName: 'prep-b' }]);
    expect(none.rows).toEqual([]);
  });
});
