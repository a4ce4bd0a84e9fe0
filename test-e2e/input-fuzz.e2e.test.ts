import { fuzzEveryOperation, startTestCluster, type TestCluster } from '@svc/test-kit';
import { ROOT } from './helpers';

// Issue #13 in cluster mode: the same fuzz as the embedded default's, so every service behind the
// gateway (its own process, PostgreSQL, RabbitMQ) is held to the same rule.
describe('cluster: no input a client can send produces a 5xx', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startTestCluster({ rootDir: ROOT });
  }, 120_000);

  afterAll(async () => {
    await cluster?.teardown();
  }, 60_000);

  it('when every operation gets valid, broken, huge and oddly encoded requests, then none answers 5xx, every error is the envelope, and the victim platform neither leaks nor changes', async () => {
    const report = await fuzzEveryOperation({
      gatewayUrl: cluster.gatewayUrl,
      adminToken: cluster.adminToken,
      runsPerOperation: Number(process.env.FUZZ_RUNS ?? 30),
      timeBudgetMs: 150_000,
      ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }),
    });
    console.log(report.summary);
    if (report.failures.length > 0) console.log(JSON.stringify(report.failures.slice(0, 40), null, 2));

    expect(report.operations).toBeGreaterThan(60);
    expect(report.sent).toBeGreaterThanOrEqual(report.operations * 5);
    expect(report.serverErrors).toBe(0);
    expect(report.failures).toEqual([]);
    expect(report.victimChanges).toEqual([]);
  }, 300_000);
});
