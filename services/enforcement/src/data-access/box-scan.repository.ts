import type { Queryable } from '@svc/storage';
import type { BoxScan, BoxScanStore } from '../domain/ports';
import { isoOrNull, toDate, toDateOrNull, toNumber } from '@svc/storage';

interface ScanRow {
  box_id: string;
  status: string;
  cursor_seq: unknown;
  avatars_scanned: unknown;
  violations_created: unknown;
  attempts: unknown;
  next_attempt_at: unknown;
  last_error: string | null;
  started_at: unknown;
  completed_at: unknown;
  lease_until: unknown;
}

function toScan(row: ScanRow): BoxScan {
  return {
    boxId: row.box_id,
    status: row.status as BoxScan['status'],
    cursorSeq: toNumber(row.cursor_seq),
    avatarsScanned: toNumber(row.avatars_scanned),
    violationsCreated: toNumber(row.violations_created),
    attempts: toNumber(row.attempts),
    nextAttemptAt: toDate(row.next_attempt_at),
    lastError: row.last_error,
    startedAt: toDate(row.started_at),
    completedAt: toDateOrNull(row.completed_at),
    leaseUntil: toDateOrNull(row.lease_until),
  };
}

/** Initial scans of new boxes, with their progress. */
export class BoxScanRepository implements BoxScanStore {
  async start(tx: Queryable, boxId: string, now: Date): Promise<boolean> {
    const { rows } = await tx.query(
      `INSERT INTO box_scans (box_id, status, next_attempt_at, started_at) VALUES ($1, 'in_progress', $2, $2)
       ON CONFLICT (box_id) DO NOTHING RETURNING box_id`,
      [boxId, now.toISOString()],
    );
    return rows.length > 0;
  }

  async leaseDue(tx: Queryable, now: Date, leaseUntil: Date): Promise<BoxScan | null> {
    const { rows } = await tx.query<ScanRow>(
      `UPDATE box_scans SET lease_until = $2 WHERE box_id = (
         SELECT box_id FROM box_scans
         WHERE status = 'in_progress' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
         ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [now.toISOString(), leaseUntil.toISOString()],
    );
    const row = rows[0];
    return row === undefined ? null : toScan(row);
  }

  async find(q: Queryable, boxId: string, options: { lock?: boolean } = {}): Promise<BoxScan | null> {
    const { rows } = await q.query<ScanRow>(
      `SELECT * FROM box_scans WHERE box_id = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [boxId],
    );
    const row = rows[0];
    return row === undefined ? null : toScan(row);
  }

  async update(tx: Queryable, s: BoxScan): Promise<void> {
    await tx.query(
      `UPDATE box_scans SET status = $2, cursor_seq = $3, avatars_scanned = $4, violations_created = $5, attempts = $6,
         next_attempt_at = $7, last_error = $8, completed_at = $9, lease_until = $10 WHERE box_id = $1`,
      [
        s.boxId,
        s.status,
        s.cursorSeq,
        s.avatarsScanned,
        s.violationsCreated,
        s.attempts,
        s.nextAttemptAt.toISOString(),
        s.lastError,
        isoOrNull(s.completedAt),
        isoOrNull(s.leaseUntil),
      ],
    );
  }
}
