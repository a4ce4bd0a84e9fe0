import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { licensingConfigSchema } from './config';
import { startLicensing } from './start';

async function main(): Promise<void> {
  const config = loadConfig(licensingConfigSchema);
  const logger = createLogger('licensing', { level: config.LOG_LEVEL });
  const running = await startLicensing(config, { logger });
  runUntilSignalled([{ name: 'licensing', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
