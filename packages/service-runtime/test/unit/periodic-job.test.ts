import { createLogger } from '@svc/logger';
import { createDatabase, runWithTransactionHook, type Database, type TransactionHook } from '@svc/storage';
import { periodicJob } from '../../src';

const silent = createLogger('periodic-job-test', { level: 'silent' });

describe('periodicJob', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createDatabase({ url: 'pglite://memory' });
    await db.query('CREATE TABLE passes (n integer)');
  });
  afterAll(async () => {
    await db.close();
  });

  it("when a request kicks a pass, then the pass writes in its own transactions, never in the request's (its Idempotency-Key stays out)", async () => {
    const enlisted: string[] = [];
    const hook: TransactionHook = {
      db,
      isActive: () => true,
      enlist: async () => {
        enlisted.push('enlisted');
      },
    };
    const job = periodicJob({
      name: 'test-pass',
      intervalMs: 0,
      logger: silent,
      run: () => db.transaction((tx) => tx.query('INSERT INTO passes (n) VALUES (1)')),
    });
    // The request's own write enlists its key; the pass it kicks does not.
    await runWithTransactionHook(hook, async () => {
      await db.transaction((tx) => tx.query('INSERT INTO passes (n) VALUES (0)'));
      await job.runOnce();
    });
    expect(enlisted).toEqual(['enlisted']);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM passes');
    expect(rows[0]?.n).toBe(2);
  });

  it('when a pass is asked for while one runs, then the caller gets the running pass', async () => {
    let passes = 0;
    let release!: () => void;
    const job = periodicJob({
      name: 'test-shared',
      intervalMs: 0,
      logger: silent,
      run: async () => {
        passes += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return passes;
      },
    });
    const first = job.runOnce();
    const second = job.runOnce();
    release();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
  });
});
