import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Database } from './database';
import { PgliteDatabase } from './pglite';
import { PostgresDatabase } from './postgres';

export interface NotificationHandlers {
  /** A NOTIFY on the channel (its payload), delivered once its transaction committed. */
  onNotification(payload: string): void;
  /**
   * The listening session is (again) subscribed. Notifications sent while it was not are lost,
   * so whatever was derived from them must be thrown away here.
   */
  onSubscribed(): void;
  /** The listening session was lost; it reconnects on its own. */
  onLost(err: Error): void;
}

/**
 * A subscription to one channel (PostgreSQL LISTEN/NOTIFY; PGlite's in-process equivalent).
 * `roundTrip` answers once every notification committed before it started has been delivered
 * to `onNotification`: a heartbeat that proves the subscription delivers, not only that it is open.
 * It needs a session of its own on the server: through a pooler in transaction mode notifications
 * do not come back, so every heartbeat fails and the subscription counts as lost.
 */
export interface NotificationListener {
  roundTrip(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Subscribes to `channel` on the database's own engine. */
export async function listenForNotifications(
  db: Database,
  channel: string,
  handlers: NotificationHandlers,
): Promise<NotificationListener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a plain channel name: ${channel}`);
  if (db instanceof PgliteDatabase) return db.listen(channel, handlers);
  if (db instanceof PostgresDatabase) {
    const listener = new PostgresListener(db.url, channel, handlers);
    // A first subscription that fails is retried in the background, as after a loss.
    await listener.start().catch(() => undefined);
    return listener;
  }
  throw new Error('This database cannot listen for notifications');
}

const RECONNECT_MIN_MS = 100;
/** Payloads of heartbeats (roundTrip), never handed to onNotification. */
const HEARTBEAT_PREFIX = 'heartbeat:';
const RECONNECT_MAX_MS = 5_000;

/** One dedicated connection (not from a pool: a pooled session would lose its LISTEN), reconnected after a loss. */
class PostgresListener implements NotificationListener {
  private client: pg.Client | undefined;
  private subscribed = false;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private sequence = 0;
  // Another listener's heartbeat on the channel must not pass for this one's (pids repeat across containers).
  private readonly id = randomUUID();

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
  ) {}

  /** The first subscription; later ones happen in the background. Rejects when the first one fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `listen:${this.channel}`,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    this.client = client;
    const lost = (err: Error): void => {
      if (this.client !== client) return;
      this.client = undefined;
      const wasSubscribed = this.subscribed;
      this.subscribed = false;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (wasSubscribed) this.handlers.onLost(err);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      if (message.channel === this.channel && !payload.startsWith(HEARTBEAT_PREFIX)) {
        this.handlers.onNotification(payload);
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      lost(err as Error);
      throw err;
    }
    if (this.client !== client) return;
    this.subscribed = true;
    this.retryMs = RECONNECT_MIN_MS;
    this.handlers.onSubscribed();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer !== undefined) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(RECONNECT_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed) return;
      // A failure schedules the next try itself.
      this.connect().catch(() => undefined);
    }, delay);
    this.retryTimer.unref();
  }

  async roundTrip(timeoutMs: number): Promise<void> {
    const client = this.client;
    if (client === undefined || !this.subscribed) throw new Error('not subscribed');
    // The session notifies itself and waits for its own notification: one that comes back has
    // crossed the same queue as every other (delivered in commit order), so the subscription is
    // proved to deliver, not only to answer. Through a pooler in transaction mode it would not
    // come back, and the listener counts as lost.
    this.sequence += 1;
    const payload = `${HEARTBEAT_PREFIX}${this.id}:${this.sequence}`;
    let timer: NodeJS.Timeout | undefined;
    let onNotification: ((message: pg.Notification) => void) | undefined;
    const echoed = new Promise<void>((resolve, reject) => {
      onNotification = (message) => {
        if (message.channel === this.channel && message.payload === payload) resolve();
      };
      client.on('notification', onNotification);
      timer = setTimeout(() => reject(new Error(`no heartbeat within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.all([client.query('SELECT pg_notify($1, $2)', [this.channel, payload]), echoed]);
    } catch (err) {
      // A connection that stopped answering (or delivering) is dropped and replaced.
      if (this.client === client) client.emit('error', err as Error);
      throw err;
    } finally {
      clearTimeout(timer);
      if (onNotification !== undefined) client.removeListener('notification', onNotification);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.subscribed = false;
    await client?.end().catch(() => undefined);
  }
}
