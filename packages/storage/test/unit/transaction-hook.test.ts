import {
  createDatabase,
  runWithTransactionHook,
  type Database,
  type Queryable,
  type TransactionHook,
} from '../../src';

let db: Database;
let other: Database;

beforeAll(async () => {
  [db, other] = await Promise.all([
    createDatabase({ url: 'pglite://memory' }),
    createDatabase({ url: 'pglite://memory' }),
  ]);
  for (const d of [db, other]) {
    await d.exec(`CREATE TABLE things (id text PRIMARY KEY); CREATE TABLE marks (what text NOT NULL);`);
  }
  // Two PGlite databases start at once: about 3 s each alone, over 30 s beside a loaded unit run.
}, 120_000);

beforeEach(async () => {
  for (const d of [db, other]) await d.exec('TRUNCATE things, marks');
});

afterAll(async () => {
  await Promise.all([db.close(), other.close()]);
});

function marking(target: Database, state = { active: true }): TransactionHook {
  return {
    db: target,
    isActive: () => state.active,
    enlist: async (tx: Queryable) => {
      await tx.query(`INSERT INTO marks (what) VALUES ('enlisted')`);
    },
  };
}

async function count(d: Database, table: 'things' | 'marks'): Promise<number> {
  const { rows } = await d.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? -1;
}

describe('transaction hook', () => {
  it('when a hooked request commits a transaction, then the hook work commits with it', async () => {
    await runWithTransactionHook(marking(db), () =>
      db.transaction((tx) => tx.query(`INSERT INTO things (id) VALUES ('a')`)),
    );
    expect(await count(db, 'things')).toBe(1);
    expect(await count(db, 'marks')).toBe(1);
  });

  it('when a transaction is not the request effect (a read-through fill), then the hook stays out of it and joins the next one', async () => {
    await runWithTransactionHook(marking(db), async () => {
      await db.transaction((tx) => tx.query(`INSERT INTO things (id) VALUES ('filled')`), {
        requestEffect: false,
      });
      expect(await count(db, 'marks')).toBe(0);
      await db.transaction((tx) => tx.query(`INSERT INTO things (id) VALUES ('effect')`));
    });
    expect(await count(db, 'things')).toBe(2);
    expect(await count(db, 'marks')).toBe(1);
  });

  it('when the transaction rolls back, then the hook work is gone too', async () => {
    await expect(
      runWithTransactionHook(marking(db), () =>
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO things (id) VALUES ('a')`);
          throw new Error('boom');
        }),
      ),
    ).rejects.toThrow('boom');
    expect(await count(db, 'things')).toBe(0);
    expect(await count(db, 'marks')).toBe(0);
  });

  it('when a hook refuses, then the write does not happen', async () => {
    const refusing: TransactionHook = {
      db,
      isActive: () => true,
      enlist: async () => {
        throw new Error('held by another attempt');
      },
    };
    await expect(
      runWithTransactionHook(refusing, () => db.query(`INSERT INTO things (id) VALUES ('a')`)),
    ).rejects.toThrow('held by another attempt');
    expect(await count(db, 'things')).toBe(0);
  });

  it('when a write is sent outside a transaction, then it runs in one with the hook; a read does not', async () => {
    await runWithTransactionHook(marking(db), async () => {
      await db.query(`SELECT id FROM things`);
      await db.query(`INSERT INTO things (id) VALUES ('b')`);
    });
    expect(await count(db, 'things')).toBe(1);
    expect(await count(db, 'marks')).toBe(1);
  });

  it('when another database or an inactive hook is written to, then the hook stays out', async () => {
    const state = { active: true };
    await runWithTransactionHook(marking(db, state), async () => {
      await other.transaction((tx) => tx.query(`INSERT INTO things (id) VALUES ('c')`));
      state.active = false;
      await db.transaction((tx) => tx.query(`INSERT INTO things (id) VALUES ('d')`));
    });
    expect(await count(other, 'marks')).toBe(0);
    expect(await count(db, 'marks')).toBe(0);
    expect(await count(db, 'things')).toBe(1);
  });
});
