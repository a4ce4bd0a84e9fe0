import type { Logger } from '@svc/logger';
import { listenForNotifications, type Database } from '@svc/storage';
import type { KeyCache } from '../domain/key-cache';

/** The channel the migrations' triggers announce key and platform changes on (0004). */
export const KEY_CHANGES_CHANNEL = 'gateway_key_changes';
const HEARTBEAT_INTERVAL_MS = 200;
const HEARTBEAT_TIMEOUT_MS = 500;

/**
 * Keeps a replica's key cache true to the database (ADR 0025): every announced change empties it,
 * and a heartbeat through the listening session every 200 ms confirms that none is pending, which
 * is what lets the cache answer without reading (`KeyCache.confirmed`). A lost, silent or deaf
 * session puts the cache on its fallback TTL until the session is back.
 */
export async function startKeyChangeFeed(
  db: Database,
  keys: KeyCache,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  // Logged when the feed goes from live to lost and back, not at every failed try in between.
  let live = false;
  const listener = await listenForNotifications(db, KEY_CHANGES_CHANNEL, {
    onNotification: () => keys.invalidateAll(),
    onSubscribed: () => keys.subscribed(),
    onLost: (err) => {
      keys.lost();
      if (!live) return;
      live = false;
      logger.warn({ err }, 'key change feed lost: keys are read again every 750 ms until it is back');
    },
  });
  let beating = false;
  const beat = (): void => {
    if (beating) return;
    beating = true;
    const startedAt = performance.now();
    listener
      .roundTrip(HEARTBEAT_TIMEOUT_MS)
      .then(
        () => {
          keys.confirmed(startedAt);
          if (live) return;
          live = true;
          logger.info('key change feed live: keys are answered from memory');
        },
        () => undefined,
      )
      .finally(() => {
        beating = false;
      });
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await listener.close();
    },
  };
}
