import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { registryConfigSchema } from './config';
import { startRegistry } from './start';

async function main(): Promise<void> {
  const config = loadConfig(registryConfigSchema);
  const logger = createLogger('registry', { level: config.LOG_LEVEL });
  const running = await startRegistry(config, { logger });
  runUntilSignalled([{ name: 'registry', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
