import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { fuzzEveryOperation } from '@svc/test-kit';
import { embeddedConfigSchema, startEmbedded, type RunningEmbedded } from '../../src';

// Issue #13 against the embedded default: every operation of the served OpenAPI document, fuzzed.
describe('embedded default: no input a client can send produces a 5xx', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-fuzz-'));
  let running: RunningEmbedded;

  beforeAll(async () => {
    // The services make their own loggers from LOG_LEVEL: keep the run's output to errors.
    process.env.LOG_LEVEL = 'error';
    const config = loadConfig(embeddedConfigSchema, {
      PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'adm_input_fuzz_0123456789abcdef',
      LOG_LEVEL: 'silent',
    });
    running = await startEmbedded(config, createLogger('embedded', { level: 'silent' }));
  }, 300_000);

  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('when every operation gets valid, broken, huge and oddly encoded requests, then none answers 5xx, every error is the envelope, and the victim platform neither leaks nor changes', async () => {
    const report = await fuzzEveryOperation({
      gatewayUrl: running.url,
      adminToken: running.adminToken,
      runsPerOperation: Number(process.env.FUZZ_RUNS ?? 40),
      timeBudgetMs: 180_000,
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
