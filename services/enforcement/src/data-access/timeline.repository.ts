import type { Queryable } from '@svc/storage';
import type { GracePeriod } from '../domain/grace-period';
import type { DueStep, FiredStep, StepStatus, TimelineStep, TimelineStore } from '../domain/ports';
import type { PlannedStep, StepKind } from '../domain/timeline';
import { toGracePeriod, type GracePeriodRow } from './grace-period.repository';
import { fromJson, toDate, toDateOrNull, toNumber } from '@svc/storage';

interface StepRow {
  id: unknown;
  grace_period_id: string;
  platform_id: string;
  kind: string;
  position: unknown;
  due_at: unknown;
  status: string;
  fired_at: unknown;
  recipients: unknown;
}

function toStep(row: StepRow): TimelineStep {
  return {
    id: String(row.id),
    gracePeriodId: row.grace_period_id,
    platformId: row.platform_id,
    kind: row.kind as StepKind,
    position: toNumber(row.position),
    dueAt: toDate(row.due_at),
    status: row.status as StepStatus,
    firedAt: toDateOrNull(row.fired_at),
    recipients: row.recipients === null ? null : fromJson<string[]>(row.recipients),
  };
}

/** The durable timeline: one row per timed step (ADR 0008). */
export class TimelineRepository implements TimelineStore {
  async plan(tx: Queryable, gp: GracePeriod, steps: PlannedStep[]): Promise<void> {
    const values: string[] = [];
    const params: unknown[] = [];
    for (const step of steps) {
      const n = params.length;
      values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, 'scheduled')`);
      params.push(gp.id, gp.platformId, step.kind, step.position, step.dueAt.toISOString());
    }
    if (values.length === 0) return;
    await tx.query(
      `INSERT INTO timeline_steps (grace_period_id, platform_id, kind, position, due_at, status) VALUES ${values.join(', ')}`,
      params,
    );
  }

  async forGracePeriods(q: Queryable, ids: string[]): Promise<Map<string, TimelineStep[]>> {
    const found = new Map<string, TimelineStep[]>();
    if (ids.length === 0) return found;
    const { rows } = await q.query<StepRow>(
      'SELECT * FROM timeline_steps WHERE grace_period_id = ANY($1) ORDER BY position',
      [ids],
    );
    for (const row of rows) {
      const step = toStep(row);
      found.set(step.gracePeriodId, [...(found.get(step.gracePeriodId) ?? []), step]);
    }
    return found;
  }

  async hold(tx: Queryable, gracePeriodId: string): Promise<void> {
    await tx.query(
      `UPDATE timeline_steps SET status = 'held' WHERE grace_period_id = $1 AND status = 'scheduled'`,
      [gracePeriodId],
    );
  }

  async release(tx: Queryable, gracePeriodId: string, shiftMs: number): Promise<void> {
    await tx.query(
      `UPDATE timeline_steps SET status = 'scheduled', due_at = due_at + make_interval(secs => $2::double precision / 1000)
       WHERE grace_period_id = $1 AND status = 'held'`,
      [gracePeriodId, shiftMs],
    );
  }

  async reschedule(tx: Queryable, gracePeriodId: string, shiftMs: number): Promise<void> {
    await tx.query(
      `UPDATE timeline_steps SET status = 'scheduled', due_at = due_at + make_interval(secs => $2::double precision / 1000)
       WHERE grace_period_id = $1 AND status = 'cancelled' AND fired_at IS NULL`,
      [gracePeriodId, shiftMs],
    );
  }

  async cancelRemaining(tx: Queryable, gracePeriodIds: string[]): Promise<void> {
    if (gracePeriodIds.length === 0) return;
    await tx.query(
      `UPDATE timeline_steps SET status = 'cancelled'
       WHERE grace_period_id = ANY($1) AND status IN ('scheduled', 'held')`,
      [gracePeriodIds],
    );
  }

  async scheduledInOrder(tx: Queryable, gracePeriodIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (gracePeriodIds.length === 0) return out;
    const { rows } = await tx.query<{ id: string | number; grace_period_id: string }>(
      `SELECT id, grace_period_id FROM timeline_steps
       WHERE grace_period_id = ANY($1) AND status = 'scheduled' ORDER BY due_at, position, id`,
      [gracePeriodIds],
    );
    for (const row of rows) {
      const list = out.get(row.grace_period_id) ?? [];
      list.push(String(row.id));
      out.set(row.grace_period_id, list);
    }
    return out;
  }

  async lockDue(
    tx: Queryable,
    options: { now: Date; limit: number; platform?: { id: string; offsetMs: number }; wait?: boolean },
  ): Promise<DueStep[]> {
    const params: unknown[] = [];
    let condition: string;
    if (options.platform === undefined) {
      params.push(options.now.toISOString());
      condition = 's.due_at <= $1';
    } else {
      params.push(
        new Date(options.now.getTime() + options.platform.offsetMs).toISOString(),
        options.platform.id,
      );
      condition = 's.platform_id = $2 AND s.due_at <= $1';
    }
    params.push(options.limit);
    // Locking the grace period with its step keeps one grace period's steps on one scheduler at a
    // time, in order; SKIP LOCKED lets replicas share the work without waiting on each other.
    const { rows } = await tx.query<StepRow & { gp: GracePeriodRow; offset_ms: unknown }>(
      `SELECT s.*, to_jsonb(g.*) AS gp, COALESCE(c.offset_ms, 0) AS offset_ms
       FROM timeline_steps s
       JOIN grace_periods g ON g.id = s.grace_period_id
       LEFT JOIN sandbox_clocks c ON c.platform_id = s.platform_id
       WHERE s.status = 'scheduled' AND ${condition}
       ORDER BY s.due_at, s.position, s.id
       LIMIT $${params.length}
       FOR UPDATE OF s, g ${options.wait === true ? '' : 'SKIP LOCKED'}`,
      params,
    );
    return rows.map((row) => ({
      step: toStep(row),
      gracePeriod: toGracePeriod(fromJson<GracePeriodRow>(row.gp)),
      offsetMs: toNumber(row.offset_ms),
    }));
  }

  async markFired(tx: Queryable, fired: FiredStep[]): Promise<void> {
    if (fired.length === 0) return;
    await tx.query(
      `UPDATE timeline_steps SET status = 'fired', fired_at = f.fired_at, recipients = f.recipients
       FROM jsonb_to_recordset($1::jsonb) AS f(id bigint, fired_at timestamptz, recipients jsonb)
       WHERE timeline_steps.id = f.id`,
      [
        JSON.stringify(
          fired.map((f) => ({ id: f.id, fired_at: f.firedAt.toISOString(), recipients: f.recipients })),
        ),
      ],
    );
  }

  async cancelSteps(tx: Queryable, stepIds: string[]): Promise<void> {
    if (stepIds.length === 0) return;
    await tx.query(`UPDATE timeline_steps SET status = 'cancelled' WHERE id = ANY($1::bigint[])`, [stepIds]);
  }
}
