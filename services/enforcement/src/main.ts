import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { enforcementConfigSchema } from './config';
import { startEnforcement } from './start';

async function main(): Promise<void> {
  const config = loadConfig(enforcementConfigSchema);
  const logger = createLogger('enforcement', { level: config.LOG_LEVEL });
  const running = await startEnforcement(config, { logger });
  runUntilSignalled([{ name: 'enforcement', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
