import type { KnownKey } from './ports';

/** How old what a replica knows of a key may be when it lets a request through with it (ADR 0025). */
export const KEY_STALENESS_MS = 750;
/** Beyond this many keys the cache starts again empty (a bound on memory, not expected in use). */
const MAX_KEYS = 100_000;

/**
 * What this replica knows of the keys it has seen, so that a request needs no database round
 * trip to find its key. A key changed anywhere (revoked, rotated, its platform changed) must be
 * refused by every replica within 1 s, so an entry is used only while it is provably fresh:
 *
 * - while the change feed (LISTEN) is live: every change committed before the last confirmed
 *   heartbeat has emptied the cache (`invalidateAll`), so an entry is good while that heartbeat
 *   started less than `maxStaleMs` ago;
 * - otherwise (the listening session was lost, or has not confirmed lately): an entry is good for
 *   `maxStaleMs` after it was read, and then read again (the fallback TTL).
 *
 * A read that began before an invalidation is not kept: it may have seen the row before the change.
 */
export class KeyCache {
  private readonly entries = new Map<string, { key: KnownKey; readAt: number }>();
  private generation = 0;
  private confirmedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxStaleMs = KEY_STALENESS_MS,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {}

  /** The key of this hash: from memory while fresh, else read (unknown keys are never kept). */
  async get(keyHash: string, read: () => Promise<KnownKey | null>): Promise<KnownKey | null> {
    const now = this.monotonicNow();
    const entry = this.entries.get(keyHash);
    if (entry !== undefined && Math.max(entry.readAt, this.confirmedAt) >= now - this.maxStaleMs) {
      return entry.key;
    }
    const generation = this.generation;
    const key = await read();
    if (key === null) {
      this.entries.delete(keyHash);
    } else if (generation === this.generation) {
      if (this.entries.size >= MAX_KEYS) this.entries.clear();
      this.entries.set(keyHash, { key, readAt: now });
    }
    return key;
  }

  /** A key or a platform changed (a notification, or this replica's own change once committed). */
  invalidateAll(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** The change feed answered a heartbeat that started at `startedAt`: every earlier change was applied. */
  confirmed(startedAt: number): void {
    if (startedAt > this.confirmedAt) this.confirmedAt = startedAt;
  }

  /** The change feed was lost: entries live `maxStaleMs` from their read until it is back. */
  lost(): void {
    this.confirmedAt = Number.NEGATIVE_INFINITY;
  }

  /** The change feed is (again) subscribed: what was missed meanwhile is unknown, so start empty. */
  subscribed(): void {
    this.lost();
    this.invalidateAll();
  }

  get size(): number {
    return this.entries.size;
  }
}
