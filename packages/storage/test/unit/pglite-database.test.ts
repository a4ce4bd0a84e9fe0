import { createDatabase, type Database } from '../../src';
import { databaseContract } from '../database-contract';

// The shared contract (the same one runs against PostgreSQL in test/integration/postgres-database.test.ts).
databaseContract({ kind: 'pglite', open: () => createDatabase({ url: 'pglite://memory' }) });

describe('createDatabase', () => {
  it('when the URL has another scheme, then it refuses naming the scheme and the ones it supports', async () => {
    await expect(createDatabase({ url: 'mysql://root@localhost/app' })).rejects.toThrow(
      'Unsupported database URL scheme: mysql (use postgres:// or pglite://)',
    );
    await expect(createDatabase({ url: 'sqlite:app.db' })).rejects.toThrow(
      'Unsupported database URL scheme: sqlite',
    );
  });

  it('when opened from pglite://memory, then it is a PGlite database', async () => {
    const db: Database = await createDatabase({ url: 'pglite://memory' });
    try {
      expect(db.kind).toBe('pglite');
    } finally {
      await db.close();
    }
  });
});
