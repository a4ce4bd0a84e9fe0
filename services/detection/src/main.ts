import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { detectionConfigSchema } from './config';
import { startDetection } from './start';

async function main(): Promise<void> {
  const config = loadConfig(detectionConfigSchema);
  const logger = createLogger('detection', { level: config.LOG_LEVEL });
  const running = await startDetection(config, { logger });
  runUntilSignalled([{ name: 'detection', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
