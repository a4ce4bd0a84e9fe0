import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadMigrationsFromDir, serviceMigrationsDir } from '../../src';

let dir: string;

function write(files: Record<string, string>, into = dir): void {
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(into, name), content);
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-migrations-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadMigrationsFromDir', () => {
  it('when files are NNNN_<what>.sql, then they come back in version order with their name and SQL', () => {
    write({
      '0010_add_index.sql': 'CREATE INDEX i ON t (x);',
      '0002_add_column.sql': 'ALTER TABLE t ADD COLUMN x int;',
      '0001_create-table.sql': 'CREATE TABLE t (id int);',
    });

    expect(loadMigrationsFromDir(dir)).toEqual([
      { version: 1, name: 'create-table', sql: 'CREATE TABLE t (id int);' },
      { version: 2, name: 'add_column', sql: 'ALTER TABLE t ADD COLUMN x int;' },
      { version: 10, name: 'add_index', sql: 'CREATE INDEX i ON t (x);' },
    ]);
  });

  it('when the folder holds other files than .sql, then they are ignored', () => {
    write({
      '0001_init.sql': 'SELECT 1;',
      'README.md': '# notes',
      '0002_draft.sql.bak': 'nope',
      '.keep': '',
    });

    expect(loadMigrationsFromDir(dir).map((m) => m.name)).toEqual(['init']);
  });

  it('when two files share a version, then loading refuses naming the version and the folder', () => {
    write({ '0001_init.sql': 'SELECT 1;', '0002_users.sql': 'SELECT 2;', '0002_claims.sql': 'SELECT 3;' });

    expect(() => loadMigrationsFromDir(dir)).toThrow(`Two migrations share version 2 in ${dir}`);
  });

  it('when a .sql file is misnamed, then loading refuses naming it instead of skipping it silently', () => {
    write({ '0001_init.sql': 'SELECT 1;', '0002_AddUsers.sql': 'SELECT 2;', '3_claims.sql': 'SELECT 3;' });

    expect(() => loadMigrationsFromDir(dir)).toThrow(
      /NNNN_<lowercase_name>\.sql.*0002_AddUsers\.sql, 3_claims\.sql/,
    );
  });

  it('when the folder is empty, then there are no migrations', () => {
    expect(loadMigrationsFromDir(dir)).toEqual([]);
  });

  it('when the folder does not exist, then loading fails naming it', () => {
    expect(() => loadMigrationsFromDir(path.join(dir, 'missing'))).toThrow(/ENOENT.*missing/);
  });
});

describe('serviceMigrationsDir', () => {
  it('when called from a folder deep inside a package, then it is <package root>/src/data-access/migrations', () => {
    const nested = path.join(dir, 'dist', 'entry-points', 'http');
    mkdirSync(nested, { recursive: true });
    write({ 'package.json': '{"name":"@svc/registry"}' });

    expect(serviceMigrationsDir(nested)).toBe(path.join(dir, 'src', 'data-access', 'migrations'));
  });

  it('when called from src/ or from the package root itself, then the answer is the same', () => {
    mkdirSync(path.join(dir, 'src'));
    write({ 'package.json': '{}' });

    expect(serviceMigrationsDir(path.join(dir, 'src'))).toBe(
      path.join(dir, 'src', 'data-access', 'migrations'),
    );
    expect(serviceMigrationsDir(dir)).toBe(path.join(dir, 'src', 'data-access', 'migrations'));
  });

  it('when packages are nested, then the nearest package.json above wins', () => {
    const inner = path.join(dir, 'services', 'billing');
    mkdirSync(path.join(inner, 'src'), { recursive: true });
    write({ 'package.json': '{"name":"workspace"}' });
    write({ 'package.json': '{"name":"@svc/billing"}' }, inner);

    expect(serviceMigrationsDir(path.join(inner, 'src'))).toBe(
      path.join(inner, 'src', 'data-access', 'migrations'),
    );
  });

  it('when a found folder is read, then its migrations load (the two work together)', () => {
    const migrations = path.join(dir, 'src', 'data-access', 'migrations');
    mkdirSync(migrations, { recursive: true });
    write({ 'package.json': '{}' });
    write({ '0001_init.sql': 'CREATE TABLE t (id int);' }, migrations);

    expect(loadMigrationsFromDir(serviceMigrationsDir(path.join(dir, 'src')))).toEqual([
      { version: 1, name: 'init', sql: 'CREATE TABLE t (id int);' },
    ]);
  });

  it('when no package.json is above the folder, then it fails naming the folder', () => {
    const lonely = path.join(dir, 'a', 'b');
    mkdirSync(lonely, { recursive: true });

    expect(() => serviceMigrationsDir(lonely)).toThrow(`No package.json above ${lonely}`);
  });
});
