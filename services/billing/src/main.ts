import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { billingConfigSchema } from './config';
import { startBilling } from './start';

async function main(): Promise<void> {
  const config = loadConfig(billingConfigSchema);
  const logger = createLogger('billing', { level: config.LOG_LEVEL });
  const running = await startBilling(config, { logger });
  runUntilSignalled([{ name: 'billing', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
