import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBase62 } from '@svc/ids';
import { createLogger, type Logger } from '@svc/logger';
import { DatabaseDeadLetterStore, InProcessMessageBus, inProcessBusMigrations } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { MailCatcher, type CaughtMail } from '@svc/mail';
import { generateApiKey, gatewayService, newTotpSecret, totpUri, type RunningGateway } from '@svc/gateway';
import { billingEmbedded } from '@svc/billing';
import { detectionEmbedded } from '@svc/detection';
import { enforcementEmbedded } from '@svc/enforcement';
import { licensingEmbedded } from '@svc/licensing';
import { registryEmbedded } from '@svc/registry';
import { webhookDispatcherEmbedded } from '@svc/webhook-dispatcher';
import { startFromEnv, type EmbeddedDeps, type EmbeddedService } from '@svc/service-runtime';
import type { EmbeddedConfig } from './config';

export type { EmbeddedDeps, EmbeddedService } from '@svc/service-runtime';

/**
 * Every domain service of the embedded default. Adding a service is one line here: its
 * embedded form (`embeddedServiceOf` its descriptor, @svc/service-runtime) opens PGlite under DATA_DIR, joins the in-process bus and listens on port 0.
 */
// Detection before the registry: the registry tells detection to forget faces (it needs its URL).
export const EMBEDDED_SERVICES: EmbeddedService[] = [
  detectionEmbedded,
  registryEmbedded,
  licensingEmbedded,
  enforcementEmbedded,
  billingEmbedded,
  webhookDispatcherEmbedded,
];

/** A secret kept under DATA_DIR so that it survives restarts of the embedded default. */
function persistedSecret(dataDir: string, name: string, make: () => string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

export interface RunningEmbedded {
  url: string;
  sandboxKey: string;
  adminToken: string;
  /** The operator's TOTP secret (ADMIN_TOTP_SECRET) and its otpauth:// URI for an authenticator app. */
  adminTotpSecret: string;
  adminTotpUri: string;
  gateway: RunningGateway;
  /** Where account mail goes: the SMTP_URL given, or the local catcher's (its inbox: `mailCatcher`). */
  smtpUrl: string;
  /** The local mail catcher (make dev), when SMTP_URL was not given. */
  mailCatcher: MailCatcher | undefined;
  /** Each service's loopback URL by its `<NAME>_URL` (their `/metrics` is there). */
  serviceUrls: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts every service in this process on PGlite files under DATA_DIR and the in-process bus. */
export async function startEmbedded(
  config: EmbeddedConfig,
  logger: Logger,
  hooks: { onMail?: (mail: CaughtMail) => void } = {},
): Promise<RunningEmbedded> {
  const dataDir = path.resolve(config.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const internalJwtSecret = persistedSecret(dataDir, 'internal-jwt-secret', () => randomBase62(48));
  const adminToken =
    config.ADMIN_TOKEN ?? persistedSecret(dataDir, 'admin-token', () => `adm_${randomBase62(32)}`);
  // The operator's second factor is preset here (not enrolled in the browser): make dev prints it.
  const adminTotpSecret =
    config.ADMIN_TOTP_SECRET ?? persistedSecret(dataDir, 'admin-totp-secret', () => newTotpSecret());
  const sandboxKey =
    config.SVC_BOOTSTRAP_KEY ??
    persistedSecret(dataDir, 'bootstrap-key', () => generateApiKey(config.SVC_ENVIRONMENT));

  // The gateway's PGlite file also keeps the bus's dead letters, so that a restart loses none
  // (in cluster mode RabbitMQ's dead-letter queues keep them); no other table is shared.
  const gatewayDb: Database = await createDatabase({ url: `pglite://${path.join(dataDir, 'gateway')}` });
  await runMigrations(gatewayDb, [inProcessBusMigrations]);
  // Held until every service has subscribed: a relay's first publishes after a restart (rows a
  // crash left unsent) must reach the queues of the services started after it too.
  const bus = new InProcessMessageBus({
    logger,
    heldUntilOpen: true,
    deadLetterStore: new DatabaseDeadLetterStore(gatewayDb),
  });
  const urls: Record<string, string> = {};
  const deps: EmbeddedDeps = {
    dataDir,
    bus,
    logger,
    environment: config.SVC_ENVIRONMENT,
    internalJwtSecret,
    allowPrivateFetch: config.SVC_ALLOW_PRIVATE_FETCH,
    serviceUrls: urls,
    env: {
      VERIFICATION_BASE_URL: config.VERIFICATION_BASE_URL,
      TIMELINE_INTERVAL_MS: config.TIMELINE_INTERVAL_MS,
      LICENSE_EXPIRY_INTERVAL_MS: config.LICENSE_EXPIRY_INTERVAL_MS,
      // Credentials and status lists name the address third parties reach (docs/spec/contracts.md §16).
      CREDENTIAL_ISSUER: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`,
    },
  };
  const services: { stop(): Promise<void> }[] = [];
  for (const service of EMBEDDED_SERVICES) {
    const running = await service.start(deps);
    services.push(running);
    urls[service.urlVariable] = running.url;
  }

  const mailCatcher =
    config.SMTP_URL === undefined ? await startMailCatcher(config, logger, hooks) : undefined;
  const smtpUrl = config.SMTP_URL ?? mailCatcher?.url ?? '';
  const gateway = await startFromEnv(
    gatewayService,
    {
      PORT: String(config.PORT),
      METRICS_PORT: String(config.METRICS_PORT),
      HOST: config.HOST,
      SVC_ENVIRONMENT: config.SVC_ENVIRONMENT,
      INTERNAL_JWT_SECRET: internalJwtSecret,
      ADMIN_TOKEN: adminToken,
      ADMIN_TOTP_SECRET: adminTotpSecret,
      SVC_BOOTSTRAP_KEY: sandboxKey,
      SVC_ALLOW_PRIVATE_FETCH: String(config.SVC_ALLOW_PRIVATE_FETCH),
      SMTP_URL: smtpUrl,
      // Uploaded pictures as files: 5 MiB stored in PGlite held the event loop for seconds (#30).
      UPLOAD_DIR: path.join(dataDir, 'uploads'),
      ...(config.SIGN_UPS_PER_HOUR === undefined ? {} : { SIGN_UPS_PER_HOUR: config.SIGN_UPS_PER_HOUR }),
      ...(config.DASHBOARD_CALLS_PER_MINUTE === undefined
        ? {}
        : { DASHBOARD_CALLS_PER_MINUTE: config.DASHBOARD_CALLS_PER_MINUTE }),
      ...(config.DASHBOARD_CALLS_PER_DAY === undefined
        ? {}
        : { DASHBOARD_CALLS_PER_DAY: config.DASHBOARD_CALLS_PER_DAY }),
      LOG_LEVEL: config.LOG_LEVEL,
      ...urls,
    },
    // Its one consumer (creator notifications) is on the bus too, subscribed before the bus opens.
    { logger: createLogger('gateway', { level: config.LOG_LEVEL }), db: gatewayDb, bus },
  );
  bus.open();

  return {
    url: gateway.url,
    sandboxKey,
    adminToken,
    adminTotpSecret,
    adminTotpUri: totpUri(adminTotpSecret, 'operator'),
    gateway,
    smtpUrl,
    mailCatcher,
    serviceUrls: { ...urls },
    stop: async () => {
      await gateway.stop();
      for (const service of services.reverse()) await service.stop();
      await bus.close();
      await gatewayDb.close();
      await mailCatcher?.stop();
    },
  };
}

/** The local SMTP catcher of make dev (#30): each mail is logged with its links, and handed to `onMail`. */
async function startMailCatcher(
  config: EmbeddedConfig,
  logger: Logger,
  hooks: { onMail?: (mail: CaughtMail) => void },
): Promise<MailCatcher> {
  const onMail = (mail: CaughtMail) => {
    logger.info({ to: mail.to, subject: mail.subject, links: mail.links }, 'mail caught (local catcher)');
    hooks.onMail?.(mail);
  };
  try {
    return await new MailCatcher({ port: config.MAIL_CATCHER_PORT, onMail }).start();
  } catch (err) {
    logger.warn({ err, port: config.MAIL_CATCHER_PORT }, 'mail catcher port taken: using any free port');
    return new MailCatcher({ port: 0, onMail }).start();
  }
}
