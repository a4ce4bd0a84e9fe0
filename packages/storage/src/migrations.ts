import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MigrationError, Umzug, type UmzugStorage } from 'umzug';
import type { Database, Queryable } from './database';

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

/** A migration's name for umzug, and in the list runMigrations returns after its namespace. */
function migrationName(migration: Migration): string {
  return `${migration.version}_${migration.name}`;
}

/**
 * umzug's record of what ran: the `schema_migrations` rows of one namespace, written in the
 * applying transaction (`context`). Rows are matched by version, as they always were, so that a
 * database migrated before umzug came in (ADR 0019) never applies a migration again.
 */
function namespaceStorage(
  namespace: string,
  migrations: Migration[],
  recordedVersions: Set<number>,
): UmzugStorage<Queryable> {
  const byName = new Map(migrations.map((migration) => [migrationName(migration), migration]));
  const named = (name: string): Migration => {
    const migration = byName.get(name);
    if (migration === undefined) throw new Error(`Unknown migration ${namespace}/${name}`);
    return migration;
  };
  return {
    executed: async () =>
      migrations.filter((migration) => recordedVersions.has(migration.version)).map(migrationName),
    logMigration: async ({ name, context }) => {
      const migration = named(name);
      await context.query(
        'INSERT INTO schema_migrations (namespace, version, name, checksum) VALUES ($1, $2, $3, $4)',
        [namespace, migration.version, migration.name, checksum(migration.sql)],
      );
    },
    unlogMigration: async ({ name, context }) => {
      await context.query('DELETE FROM schema_migrations WHERE namespace = $1 AND version = $2', [
        namespace,
        named(name).version,
      ]);
    },
  };
}

/**
 * Applies every pending migration of every source in one transaction, under an advisory lock so
 * that replicas starting together apply each migration once; umzug orders and runs them and
 * records each in `schema_migrations` (ADR 0019). An applied migration whose text has changed is
 * an error: migrations are append-only.
 */
export async function runMigrations(db: Database, sources: MigrationSource[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    // exec: waiting for another replica's migrations is not cut by the query timeout.
    await tx.exec(`SELECT pg_advisory_xact_lock(7262530)`);
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
      const migrations = [...source.migrations].sort((a, b) => a.version - b.version);
      const done = await tx.query<{ version: number; checksum: string }>(
        'SELECT version, checksum FROM schema_migrations WHERE namespace = $1',
        [source.namespace],
      );
      const recorded = new Map(done.rows.map((row) => [Number(row.version), row.checksum]));
      // umzug keeps names only: that an applied migration is unchanged is checked here.
      for (const migration of migrations) {
        const previous = recorded.get(migration.version);
        if (previous !== undefined && previous !== checksum(migration.sql)) {
          throw new Error(
            `Migration ${source.namespace}/${migrationName(migration)} changed after it was applied`,
          );
        }
      }
      const umzug = new Umzug<Queryable>({
        migrations: migrations.map((migration) => ({
          name: migrationName(migration),
          up: async ({ context }) => {
            await context.exec(migration.sql);
          },
        })),
        context: tx,
        storage: namespaceStorage(source.namespace, migrations, new Set(recorded.keys())),
        logger: undefined,
      });
      const ran = await umzug.up().catch((err: unknown) => {
        // The database's own error, as before umzug: callers read its code (transient or not).
        throw err instanceof MigrationError && err.cause !== undefined ? err.cause : err;
      });
      applied.push(...ran.map((migration) => `${source.namespace}/${migration.name}`));
    }
    return applied;
  });
}
