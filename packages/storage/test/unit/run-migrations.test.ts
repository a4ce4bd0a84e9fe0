import { createDatabase, type Database } from '../../src';
import { migrationContract } from '../database-contract';

// One PGlite engine for the file (opening it takes seconds); a clean schema for each test. The same
// contract runs against PostgreSQL in test/integration/postgres-migrations.test.ts.
let engine: Database | undefined;

migrationContract({
  kind: 'pglite',
  fresh: async () => {
    engine ??= await createDatabase({ url: 'pglite://memory' });
    await engine.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
    return engine;
  },
  dispose: async () => {
    await engine?.close();
  },
});
