import type { Queryable } from '@svc/storage';

// One sandbox clock per platform across every service (advance-time, learnt from
// enforcement.clock.advanced): each service keeps the offsets in its own `sandbox_clocks` table
// (platform_id text PRIMARY KEY, offset_ms bigint, updated_at timestamptz), created by its own
// migration, and reads and moves them through this one implementation.

/** Each platform's sandbox clock offset. */
export interface SandboxClockStore {
  /** How far ahead the platform's clock runs, in milliseconds (0 when it never moved). */
  offsetOf(q: Queryable, platformId: string): Promise<number>;
  /** Adds `byMs` to the platform's offset (the row stays locked until the transaction ends); the new offset. */
  advance(tx: Queryable, platformId: string, byMs: number, at: Date): Promise<number>;
  /** Platforms whose clock runs ahead. */
  ahead(q: Queryable): Promise<{ platformId: string; offsetMs: number }[]>;
}

/** The sandbox clock offsets in a service's `sandbox_clocks` table. */
export class SandboxClockRepository implements SandboxClockStore {
  async offsetOf(q: Queryable, platformId: string): Promise<number> {
    const { rows } = await q.query<{ offset_ms: string }>(
      'SELECT offset_ms::text AS offset_ms FROM sandbox_clocks WHERE platform_id = $1',
      [platformId],
      // Read on every write a platform makes: planned once per connection.
      { name: 'sandbox_clock_offset' },
    );
    return Number(rows[0]?.offset_ms ?? 0);
  }

  async advance(tx: Queryable, platformId: string, byMs: number, at: Date): Promise<number> {
    if (!Number.isSafeInteger(byMs) || byMs < 0) throw new RangeError('A clock only moves forward');
    const { rows } = await tx.query<{ offset_ms: string }>(
      `INSERT INTO sandbox_clocks (platform_id, offset_ms, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (platform_id) DO UPDATE SET offset_ms = sandbox_clocks.offset_ms + EXCLUDED.offset_ms,
         updated_at = EXCLUDED.updated_at
       RETURNING offset_ms::text AS offset_ms`,
      [platformId, byMs, at.toISOString()],
    );
    return Number(rows[0]?.offset_ms ?? 0);
  }

  async ahead(q: Queryable): Promise<{ platformId: string; offsetMs: number }[]> {
    const { rows } = await q.query<{ platform_id: string; offset_ms: string }>(
      'SELECT platform_id, offset_ms::text AS offset_ms FROM sandbox_clocks WHERE offset_ms > 0 ORDER BY platform_id',
    );
    return rows.map((row) => ({ platformId: row.platform_id, offsetMs: Number(row.offset_ms) }));
  }
}

/**
 * A platform's time: the service's clock plus the platform's sandbox offset. Every instant a
 * platform sees (periods, due fees, deadlines, a licence's validFrom) is judged on it.
 */
export async function platformNow(
  ctx: { clock: { now(): Date }; clocks: Pick<SandboxClockStore, 'offsetOf'> },
  q: Queryable,
  platformId: string,
): Promise<Date> {
  const offset = await ctx.clocks.offsetOf(q, platformId);
  return new Date(ctx.clock.now().getTime() + offset);
}
