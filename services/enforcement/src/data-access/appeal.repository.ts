import type { Queryable } from '@svc/storage';
import type { Appeal, AppealKind } from '../domain/appeal';
import type { AppealStore } from '../domain/ports';
import { fromJson, isoOrNull, toDate, toDateOrNull } from '@svc/storage';

interface AppealRow {
  id: string;
  kind: string;
  platform_id: string;
  violation_id: string;
  grace_period_id: string;
  reason: string;
  explanation: string;
  evidence: unknown;
  status: string;
  submitted_at: unknown;
  decided_at: unknown;
  decided_by: string | null;
  notes: string | null;
}

function toAppeal(row: AppealRow): Appeal {
  return {
    id: row.id,
    kind: row.kind as Appeal['kind'],
    platformId: row.platform_id,
    violationId: row.violation_id,
    gracePeriodId: row.grace_period_id,
    reason: row.reason as Appeal['reason'],
    explanation: row.explanation,
    evidence: fromJson<string[]>(row.evidence),
    status: row.status as Appeal['status'],
    submittedAt: toDate(row.submitted_at),
    decidedAt: toDateOrNull(row.decided_at),
    decidedBy: row.decided_by as Appeal['decidedBy'],
    notes: row.notes,
  };
}

/** Appeals. */
export class AppealRepository implements AppealStore {
  async insert(tx: Queryable, a: Appeal): Promise<void> {
    await tx.query(
      `INSERT INTO appeals (id, platform_id, violation_id, grace_period_id, reason, explanation, evidence, status,
         submitted_at, decided_at, decided_by, notes, kind)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13)`,
      [
        a.id,
        a.platformId,
        a.violationId,
        a.gracePeriodId,
        a.reason,
        a.explanation,
        JSON.stringify(a.evidence),
        a.status,
        a.submittedAt.toISOString(),
        isoOrNull(a.decidedAt),
        a.decidedBy,
        a.notes,
        a.kind,
      ],
    );
  }

  async update(tx: Queryable, a: Appeal): Promise<void> {
    await tx.query(
      'UPDATE appeals SET status = $2, decided_at = $3, decided_by = $4, notes = $5 WHERE id = $1',
      [a.id, a.status, isoOrNull(a.decidedAt), a.decidedBy, a.notes],
    );
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<Appeal | null> {
    const { rows } = await q.query<AppealRow>(
      `SELECT * FROM appeals WHERE id = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toAppeal(row);
  }

  async latestFor(
    q: Queryable,
    violationIds: string[],
    kind: AppealKind = 'appeal',
  ): Promise<Map<string, Appeal>> {
    const found = new Map<string, Appeal>();
    if (violationIds.length === 0) return found;
    const { rows } = await q.query<AppealRow>(
      `SELECT DISTINCT ON (violation_id) * FROM appeals WHERE violation_id = ANY($1) AND kind = $2
       ORDER BY violation_id, submitted_at DESC, id DESC`,
      [violationIds, kind],
    );
    for (const row of rows) found.set(row.violation_id, toAppeal(row));
    return found;
  }

  async withdrawPending(tx: Queryable, violationId: string, at: Date): Promise<void> {
    await tx.query(
      `UPDATE appeals SET status = 'withdrawn', decided_at = $2
       WHERE violation_id = $1 AND status = 'pending' AND kind = 'appeal'`,
      [violationId, at.toISOString()],
    );
  }
}
