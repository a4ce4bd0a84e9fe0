import type { Database } from './database';
import { PgliteDatabase, type PgliteExtension } from './pglite';
import { PostgresDatabase, ensurePostgresDatabase } from './postgres';

export interface CreateDatabaseOptions {
  /**
   * `postgres://…` / `postgresql://…` for PostgreSQL (the database is created when missing),
   * `pglite://<directory>` for PGlite files, `pglite://memory` for an in-memory PGlite.
   */
  url: string;
  maxConnections?: number;
  extensions?: PgliteExtension[];
  applicationName?: string;
  /** PostgreSQL only: settings of every session of the pool. */
  sessionSettings?: Record<string, string>;
  /** PostgreSQL only: see PostgresOptions.queryTimeoutMs (default 60 s). */
  queryTimeoutMs?: number;
  /** PostgreSQL only: see PostgresOptions.idleInTransactionTimeoutMs (default 30 s). */
  idleInTransactionTimeoutMs?: number;
  onError?: (err: Error) => void;
}

/** The one database factory: the URL decides the engine, the service never knows which. */
export async function createDatabase(options: CreateDatabaseOptions): Promise<Database> {
  const { url } = options;
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    await ensurePostgresDatabase(url);
    return new PostgresDatabase({
      url,
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      ...(options.applicationName === undefined ? {} : { applicationName: options.applicationName }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      ...(options.sessionSettings === undefined ? {} : { sessionSettings: options.sessionSettings }),
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
      ...(options.idleInTransactionTimeoutMs === undefined
        ? {}
        : { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs }),
    });
  }
  if (url.startsWith('pglite://')) {
    const location = url.slice('pglite://'.length);
    return PgliteDatabase.open({
      ...(location === 'memory' || location === '' ? {} : { dataDir: location }),
      ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    });
  }
  throw new Error(
    `Unsupported database URL scheme: ${url.split(':')[0] ?? ''} (use postgres:// or pglite://)`,
  );
}
