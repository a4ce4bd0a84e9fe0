import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, type Database } from '../../src';
import { pgliteTemplate } from '../../src/pglite-template';

// New PGlite databases start from a copy of one template cluster instead of running initdb: each
// must still be a database of its own, and one that already holds data must be opened as it is.

const root = mkdtempSync(path.join(os.tmpdir(), 'svc-pglite-template-test-'));
const opened: Database[] = [];

async function open(url: string): Promise<Database> {
  const db = await createDatabase({ url, extensions: ['pg_trgm'] });
  opened.push(db);
  return db;
}

async function tables(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
  );
  return rows.map((r) => r.name);
}

afterAll(async () => {
  for (const db of opened) await db.close().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

describe('a new PGlite database', () => {
  it('when two are created in directories, then each is a database of its own, and the template is untouched', async () => {
    const [a, b] = await Promise.all([
      open(`pglite://${path.join(root, 'a')}`),
      open(`pglite://${path.join(root, 'nested', 'b')}`),
    ]);
    await a.exec('CREATE TABLE only_in_a (id int PRIMARY KEY)');
    await a.query('INSERT INTO only_in_a VALUES (1)');
    await b.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE TABLE only_in_b (name text)');

    expect(await tables(a)).toEqual(['only_in_a']);
    expect(await tables(b)).toEqual(['only_in_b']);
    expect(existsSync(path.join(root, 'a', 'PG_VERSION'))).toBe(true);
    // Nothing is left beside the directories (the copies are made aside and renamed into place).
    expect(readdirSync(root).sort()).toEqual(['a', 'nested']);

    const template = await pgliteTemplate();
    expect(template).toBeDefined();
    const fromTemplate = await open(`pglite://${path.join(root, 'c')}`);
    expect(await tables(fromTemplate)).toEqual([]);
  });

  it('when its directory already holds a database, then it is opened as it is, its data kept', async () => {
    const dir = path.join(root, 'kept');
    const first = await open(`pglite://${dir}`);
    await first.exec('CREATE TABLE kept (id int PRIMARY KEY)');
    await first.query('INSERT INTO kept VALUES (7)');
    await first.close();

    const again = await open(`pglite://${dir}`);
    expect((await again.query<{ id: number }>('SELECT id FROM kept')).rows).toEqual([{ id: 7 }]);
  });

  it('when its directory exists but is empty, then the database is made in it', async () => {
    const dir = path.join(root, 'empty');
    mkdirSync(dir);
    const db = await open(`pglite://${dir}`);
    await db.exec('CREATE TABLE t (id int)');
    expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
    expect(await tables(db)).toEqual(['t']);
  });

  it('when two are created in memory, then neither sees the other, and both run queries and extensions', async () => {
    const [a, b] = await Promise.all([open('pglite://memory'), open('pglite://memory')]);
    await a.exec('CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE TABLE in_memory_a (name text)');
    await a.query("INSERT INTO in_memory_a VALUES ('Taylor Swift')");
    const similar = await a.query<{ s: number }>(
      "SELECT similarity(name, 'Taylor Swyft') AS s FROM in_memory_a",
    );
    expect(similar.rows[0]?.s).toBeGreaterThan(0.4);
    expect(await tables(b)).toEqual([]);
  });

  it('when the template directory can be written by other accounts, then it is not used: initdb runs, and a warning says why', async () => {
    const shared = path.join(root, 'shared-templates');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    process.env.SVC_PGLITE_TEMPLATE_DIR = shared;
    try {
      // A fresh copy of the module: its directory is read when it loads.
      let isolated!: typeof import('../../src/pglite-template');
      jest.isolateModules(() => {
        isolated =
          jest.requireActual<typeof import('../../src/pglite-template')>('../../src/pglite-template');
      });
      expect(await isolated.pgliteTemplate()).toBeUndefined();
      expect(await isolated.seedDataDir(path.join(root, 'not-seeded'))).toBe(false);
      expect(readdirSync(shared)).toEqual([]);
      expect(existsSync(path.join(root, 'not-seeded'))).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('only it can write to'));
    } finally {
      delete process.env.SVC_PGLITE_TEMPLATE_DIR;
      warn.mockRestore();
    }
  });
});
