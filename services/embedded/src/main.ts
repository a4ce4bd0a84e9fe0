import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { embeddedConfigSchema } from './config';
import { startEmbedded } from './embedded';

async function main(): Promise<void> {
  const config = loadConfig(embeddedConfigSchema);
  const logger = createLogger('embedded', { level: config.LOG_LEVEL });
  // make dev's mail (#30): each message the local catcher takes is printed with its links.
  const running = await startEmbedded(config, logger, {
    onMail: (mail) =>
      process.stdout.write(
        [
          `  Mail to ${mail.to.join(', ')}: ${mail.subject}`,
          ...mail.links.map((link) => `    ${link}`),
          '',
        ].join('\n'),
      ),
  });
  const base = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${running.gateway.port}`;
  process.stdout.write(
    [
      '',
      `  Identity protection API (embedded, ${config.SVC_ENVIRONMENT}) is ready on ${base}`,
      `  Sandbox key:   ${running.sandboxKey}`,
      `  Admin token:   ${running.adminToken}`,
      `  Admin TOTP:    ${running.adminTotpSecret} (operator sign-in code; add it to an authenticator app:`,
      `                 ${running.adminTotpUri} )`,
      `  Data:          ${config.DATA_DIR}/ (kept across restarts)`,
      `  Mail:          ${running.mailCatcher === undefined ? `sent to ${new URL(running.smtpUrl).host} (SMTP_URL)` : `caught at ${running.smtpUrl}; each message is printed here`}`,
      `  OpenAPI:       ${base}/v1/svc/openapi.json`,
      `  Dashboard:     ${base}/dashboard (sign up there; the operator signs in with the admin token and a TOTP code)`,
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
