import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { embeddedConfigSchema } from './config';
import { startEmbedded } from './embedded';

async function main(): Promise<void> {
  const config = loadConfig(embeddedConfigSchema);
  const logger = createLogger('embedded', { level: config.LOG_LEVEL });
  const running = await startEmbedded(config, logger);
  const base = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${running.gateway.port}`;
  process.stdout.write(
    [
      '',
      `  Identity protection API (embedded, ${config.SVC_ENVIRONMENT}) is ready on ${base}`,
      `  Sandbox key:   ${running.sandboxKey}`,
      `  Admin token:   ${running.adminToken}`,
      `  Data:          ${config.DATA_DIR}/ (kept across restarts)`,
      `  OpenAPI:       ${base}/v1/svc/openapi.json`,
      `  Dashboard:     ${base}/dashboard (sign up there; the operator signs in with the admin token)`,
      '',
      `  curl -H "Authorization: Bearer ${running.sandboxKey}" ${base}/v1/svc/claims`,
      '',
    ].join('\n') + '\n',
  );
  runUntilSignalled([{ name: 'embedded', stop: running.stop }], logger);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
