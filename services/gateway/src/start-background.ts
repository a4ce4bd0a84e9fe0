import type { Clock } from '@svc/clock';
import type { Logger } from '@svc/logger';
import { REFERENCED_UPLOADS_PATH, type ReferencedUploadsResponse } from '@svc/contracts/registry';
import { EVENT_QUEUES, topologyMismatch } from '@svc/contracts/topology';
import { SmtpMailer } from '@svc/mail';
import { AmqpMessageBus, watchConsumers, type MessageBus } from '@svc/messaging';
import { periodicJob, type BackgroundPart } from '@svc/service-runtime';
import { createServiceClient, type ReadinessCheck } from '@svc/service-kit';
import type { Database } from '@svc/storage';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from './config';
import type { MailLinks } from './domain/account-mail';
import type { GatewayContext } from './domain/gateway-context';
import { purgeUnreferencedUploads } from './domain/purge-uploads.use-case';
import { relayAccountMail } from './domain/relay-account-mail.use-case';
import { creatorNotificationsSubscription } from './entry-points/messaging/creator-notifications.consumer';
import type { Gateway } from './gateway';

// What runs beside the gateway's HTTP server (startGateway in start.ts): its one consumer, the mail
// relay, the purge of unreferenced uploads and the request log's writes.

/** How often the mail relay looks for due mail besides being woken when one is queued (#30). */
const MAIL_RELAY_INTERVAL_MS = 2000;
/** How often unreferenced uploads are looked for (the housekeeping's rhythm). */
export const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;

export type BusPart = BackgroundPart & { bus: MessageBus };

/**
 * The gateway's one consumer (#30, ADR 0028): the events creators are mailed about, on the bus the
 * embedded default hands in or AMQP_URL's. Without either, nobody is notified (a warning says so).
 * On RabbitMQ every queue of the topology is declared first, as the domain services do, and the
 * subscription must be the topology's entry.
 */
export async function joinBus(
  config: GatewayConfig,
  overrides: { bus?: MessageBus },
  built: Gateway,
  wiring: { db: Database; logger: Logger; clock: Clock; registry: Registry },
  links: () => MailLinks,
): Promise<BusPart[]> {
  const { db, logger, clock, registry } = wiring;
  let bus = overrides.bus;
  let owned: AmqpMessageBus | undefined;
  if (bus === undefined) {
    if (config.AMQP_URL === undefined) {
      logger.warn('AMQP_URL is not set: creators are not mailed of license requests and violations');
      return [];
    }
    owned = await AmqpMessageBus.connect({ url: config.AMQP_URL, logger, connectionName: 'gateway' });
    bus = owned;
  }
  const { context } = built;
  const subscription = creatorNotificationsSubscription({
    db,
    accounts: context.accounts,
    platforms: context.platforms,
    mailOutbox: context.mailOutbox,
    clock,
    links,
    mailQueued: () => context.mailQueued?.(),
  });
  try {
    if (owned !== undefined) {
      const mismatch = topologyMismatch(subscription);
      if (mismatch !== undefined)
        throw new Error(`gateway: ${mismatch} (packages/contracts/src/topology.ts)`);
      for (const { queue, patterns } of EVENT_QUEUES)
        await owned.declareQueue({ queue, patterns: [...patterns] });
    }
    await bus.subscribe(subscription);
  } catch (err) {
    await owned?.close().catch(() => undefined);
    throw err;
  }
  watchConsumers(registry, bus, [subscription.queue]);
  const joined = bus;
  return [{ name: 'bus', bus: joined, start: () => undefined, stop: async () => await owned?.close() }];
}

export function busReadiness(parts: BusPart[]): ReadinessCheck {
  return {
    name: 'bus',
    // Notifications wait in their queue while the broker is away; the API serves regardless.
    informational: true,
    check: async () => {
      if (!parts.every((part) => part.bus.isReady())) throw new Error('message bus not connected');
    },
  };
}

/**
 * The account-mail relay (#30): sends the outbox through SMTP_URL, woken when a mail is queued and
 * every MAIL_RELAY_INTERVAL_MS. Without SMTP_URL no relay runs and mail waits in the outbox.
 */
export function startMailRelay(config: GatewayConfig, built: Gateway, logger: Logger, clock: Clock) {
  if (config.SMTP_URL === undefined) {
    logger.warn('SMTP_URL is not set: account mail (verification, password reset) waits in mail_outbox');
    return [];
  }
  if (config.PUBLIC_BASE_URL === undefined) {
    logger.warn(
      'PUBLIC_BASE_URL is not set: account mail is refused unless the dashboard is reached on localhost',
    );
  }
  const mailer = new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM });
  const { context } = built;
  const relay = periodicJob({
    name: 'mail-relay',
    intervalMs: MAIL_RELAY_INTERVAL_MS,
    logger,
    run: () =>
      relayAccountMail({
        db: context.db,
        mailOutbox: context.mailOutbox,
        mailer,
        clock,
        onFailure: (mail, err) =>
          logger.warn({ err, mailId: mail.id, attempts: mail.attempts }, 'mail not sent; retrying later'),
      }),
  });
  context.mailQueued = () => {
    relay.runOnce().catch((err: unknown) => logger.error({ err }, 'mail relay pass failed'));
  };
  return [relay, { name: 'smtp-mailer', start: () => undefined, stop: () => mailer.close() }];
}

/**
 * The purge of dashboard uploads no claim names (#30), in the housekeeping's rhythm: it asks the
 * registry, which owns the claims. Without REGISTRY_URL, or with UPLOAD_PURGE_AFTER_HOURS 0, none.
 */
export function startUploadPurge(config: GatewayConfig, built: Gateway, logger: Logger, clock: Clock) {
  if (config.REGISTRY_URL === undefined || config.UPLOAD_PURGE_AFTER_HOURS <= 0) return [];
  const registry = createServiceClient({
    service: 'gateway',
    target: 'registry',
    baseUrl: config.REGISTRY_URL,
    internalJwtSecret: config.INTERNAL_JWT_SECRET,
    environment: config.SVC_ENVIRONMENT,
    timeoutMs: 5000,
  });
  const { context } = built;
  const purge = periodicJob({
    name: 'upload-purge',
    intervalMs: HOUSEKEEPING_INTERVAL_MS,
    logger,
    run: () =>
      purgeUnreferencedUploads(
        {
          db: context.db,
          uploads: context.uploads,
          uploadFiles: context.uploadFiles,
          clock,
          logger,
          referencedUploads: async (platformId, uploadIds) => {
            const answer = await registry.json<ReferencedUploadsResponse>({
              method: 'POST',
              path: REFERENCED_UPLOADS_PATH,
              body: { platformId, uploadIds },
            });
            if (answer.status !== 200) throw new Error(`the registry answered ${answer.status}`);
            return answer.body.data.referenced;
          },
        },
        config.UPLOAD_PURGE_AFTER_HOURS * 3_600_000,
      ),
  });
  context.purgeUploads = () => purge.runOnce();
  return [purge, { name: 'registry-client', start: () => undefined, stop: () => registry.close() }];
}

/** Writes this replica's buffered request log; says when requests had to be dropped (its writes failed for long). */
export async function writeRequestLog(context: GatewayContext, logger: Logger): Promise<void> {
  const buffer = context.requestLogBuffer;
  const dropped = buffer.dropped;
  await buffer.write(context.hotPathDb);
  if (dropped > 0)
    logger.warn({ dropped }, 'request log: requests dropped while the database was unreachable');
}
