import type { Queryable } from '@svc/storage';
import type { SandboxClockStore } from '../domain/ports';

/** Per-platform sandbox clock offsets (SQL lives here). */
export class SandboxClockRepository implements SandboxClockStore {
  async offsetOf(q: Queryable, platformId: string): Promise<number> {
    const { rows } = await q.query<{ offset_ms: string }>(
      'SELECT offset_ms::text AS offset_ms FROM sandbox_clocks WHERE platform_id = $1',
      [platformId],
    );
    return Number(rows[0]?.offset_ms ?? 0);
  }

  async advance(tx: Queryable, platformId: string, byMs: number, at: Date): Promise<number> {
    const { rows } = await tx.query<{ offset_ms: string }>(
      `INSERT INTO sandbox_clocks (platform_id, offset_ms, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (platform_id) DO UPDATE SET offset_ms = sandbox_clocks.offset_ms + EXCLUDED.offset_ms,
         updated_at = EXCLUDED.updated_at
       RETURNING offset_ms::text AS offset_ms`,
      [platformId, byMs, at.toISOString()],
    );
    return Number(rows[0]?.offset_ms ?? 0);
  }
}
