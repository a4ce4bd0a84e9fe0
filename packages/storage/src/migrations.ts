import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from './database';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A set of migrations applied and recorded under one name (a service, or a shared package). */
export interface MigrationSource {
  namespace: string;
  migrations: Migration[];
}

const FILE_PATTERN = /^(\d{4})_([a-z0-9_-]+)\.sql$/;

/** Reads `NNNN_<what>.sql` files of a directory, in version order; refuses a misnamed `.sql` file. */
export function loadMigrationsFromDir(dir: string): Migration[] {
  const sqlFiles = readdirSync(dir).filter((file) => file.endsWith('.sql'));
  // Skipping `0002_AddUsers.sql` or `2_users.sql` would start a service on a schema it does not expect.
  const misnamed = sqlFiles.filter((file) => !FILE_PATTERN.test(file));
  if (misnamed.length > 0) {
    throw new Error(
      `Migration files must be named NNNN_<lowercase_name>.sql in ${dir}: ${misnamed.join(', ')}`,
    );
  }
  const migrations = sqlFiles.sort().map((file) => {
    const match = FILE_PATTERN.exec(file);
    if (match === null) throw new Error(`unreachable: ${file}`);
    return {
      version: Number(match[1]),
      name: match[2] ?? file,
      sql: readFileSync(path.join(dir, file), 'utf8'),
    };
  });
  const seen = new Set<number>();
  for (const m of migrations) {
    if (seen.has(m.version)) throw new Error(`Two migrations share version ${m.version} in ${dir}`);
    seen.add(m.version);
  }
  return migrations;
}

/**
 * The `src/data-access/migrations` folder of the package that `fromDir` belongs to, whether the
 * caller runs from `src/` (tests) or `dist/` (a build): SQL files are not copied into `dist`.
 */
export function serviceMigrationsDir(fromDir: string): string {
  let dir = fromDir;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'src', 'data-access', 'migrations');
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${fromDir}`);
    dir = parent;
  }
}

function checksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex').slice(0, 16);
}

/**
 * Applies every pending migration of every source in one transaction, under an advisory lock so
 * that replicas starting together apply each migration once. An applied migration whose text
 * has changed is an error: migrations are append-only.
 */
export async function runMigrations(db: Database, sources: MigrationSource[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(7262530)`);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      namespace text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (namespace, version)
    )`);
    const applied: string[] = [];
    for (const source of sources) {
      const done = await tx.query<{ version: number; checksum: string; name: string }>(
        'SELECT version, checksum, name FROM schema_migrations WHERE namespace = $1',
        [source.namespace],
      );
      const byVersion = new Map(done.rows.map((row) => [Number(row.version), row]));
      for (const migration of [...source.migrations].sort((a, b) => a.version - b.version)) {
        const sum = checksum(migration.sql);
        const previous = byVersion.get(migration.version);
        if (previous !== undefined) {
          if (previous.checksum !== sum) {
            throw new Error(
              `Migration ${source.namespace}/${migration.version}_${migration.name} changed after it was applied`,
            );
          }
          continue;
        }
        await tx.exec(migration.sql);
        await tx.query(
          'INSERT INTO schema_migrations (namespace, version, name, checksum) VALUES ($1, $2, $3, $4)',
          [source.namespace, migration.version, migration.name, sum],
        );
        applied.push(`${source.namespace}/${migration.version}_${migration.name}`);
      }
    }
    return applied;
  });
}
