import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { webhookDispatcherConfigSchema } from './config';
import { startWebhookDispatcher } from './start';

async function main(): Promise<void> {
  const config = loadConfig(webhookDispatcherConfigSchema);
  const logger = createLogger('webhook-dispatcher');
  const running = await startWebhookDispatcher(config, { logger });
  runUntilSignalled([{ name: 'webhook-dispatcher', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
