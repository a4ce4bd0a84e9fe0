import {
  fromRowJson,
  kyselyOn,
  rowJson,
  sql,
  type JsonbInput,
  type Queryable,
  type Selectable,
} from '@svc/storage';
import type { GracePeriod } from '../domain/grace-period';
import type { DueStep, FiredStep, TimelineStep, TimelineStore } from '../domain/ports';
import type { PlannedStep } from '../domain/timeline';
import type { DB, GracePeriods } from './db.generated';
import { gracePeriodFromJson } from './grace-period.repository';

const db = (q: Queryable) => kyselyOn<DB>(q);

// The step's id is a bigserial; the domain carries it as a string (FiredStep, cancelSteps).
function toStep(row: Omit<TimelineStep, 'id'> & { id: number }): TimelineStep {
  return { ...row, id: String(row.id) };
}

/** Shifts a step's due instant by `shiftMs` (a pause's length, or a resolution set aside). */
const shifted = (shiftMs: number) =>
  sql<Date>`${sql.ref('dueAt')} + make_interval(secs => ${shiftMs}::double precision / 1000)`;

/** The durable timeline: one row per timed step (ADR 0008). */
export class TimelineRepository implements TimelineStore {
  async plan(tx: Queryable, gp: GracePeriod, steps: PlannedStep[]): Promise<void> {
    if (steps.length === 0) return;
    await db(tx)
      .insertInto('timelineSteps')
      .values(
        steps.map((step) => ({
          gracePeriodId: gp.id,
          platformId: gp.platformId,
          kind: step.kind,
          position: step.position,
          dueAt: step.dueAt,
          status: 'scheduled' as const,
        })),
      )
      .execute();
  }

  async forGracePeriods(q: Queryable, ids: string[]): Promise<Map<string, TimelineStep[]>> {
    const found = new Map<string, TimelineStep[]>();
    if (ids.length === 0) return found;
    const rows = await db(q)
      .selectFrom('timelineSteps')
      .selectAll()
      .where((eb) => eb('gracePeriodId', '=', eb.fn.any(eb.val(ids))))
      .orderBy('position')
      .execute();
    for (const row of rows) {
      const step = toStep(row);
      found.set(step.gracePeriodId, [...(found.get(step.gracePeriodId) ?? []), step]);
    }
    return found;
  }

  async hold(tx: Queryable, gracePeriodId: string): Promise<void> {
    await db(tx)
      .updateTable('timelineSteps')
      .set({ status: 'held' })
      .where('gracePeriodId', '=', gracePeriodId)
      .where('status', '=', 'scheduled')
      .execute();
  }

  async release(tx: Queryable, gracePeriodId: string, shiftMs: number): Promise<void> {
    await db(tx)
      .updateTable('timelineSteps')
      .set({ status: 'scheduled', dueAt: shifted(shiftMs) })
      .where('gracePeriodId', '=', gracePeriodId)
      .where('status', '=', 'held')
      .execute();
  }

  async reschedule(tx: Queryable, gracePeriodId: string, shiftMs: number): Promise<void> {
    await db(tx)
      .updateTable('timelineSteps')
      .set({ status: 'scheduled', dueAt: shifted(shiftMs) })
      .where('gracePeriodId', '=', gracePeriodId)
      .where('status', '=', 'cancelled')
      .where('firedAt', 'is', null)
      .execute();
  }

  async cancelRemaining(tx: Queryable, gracePeriodIds: string[]): Promise<void> {
    if (gracePeriodIds.length === 0) return;
    await db(tx)
      .updateTable('timelineSteps')
      .set({ status: 'cancelled' })
      .where((eb) => eb('gracePeriodId', '=', eb.fn.any(eb.val(gracePeriodIds))))
      .where('status', 'in', ['scheduled', 'held'])
      .execute();
  }

  async scheduledInOrder(tx: Queryable, gracePeriodIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (gracePeriodIds.length === 0) return out;
    const rows = await db(tx)
      .selectFrom('timelineSteps')
      .select(['id', 'gracePeriodId'])
      .where((eb) => eb('gracePeriodId', '=', eb.fn.any(eb.val(gracePeriodIds))))
      .where('status', '=', 'scheduled')
      .orderBy('dueAt')
      .orderBy('position')
      .orderBy('id')
      .execute();
    for (const row of rows) {
      const list = out.get(row.gracePeriodId) ?? [];
      list.push(String(row.id));
      out.set(row.gracePeriodId, list);
    }
    return out;
  }

  async lockDue(
    tx: Queryable,
    options: { now: Date; limit: number; platform?: { id: string; offsetMs: number }; wait?: boolean },
  ): Promise<DueStep[]> {
    const { platform } = options;
    // Locking the grace period with its step keeps one grace period's steps on one scheduler at a
    // time, in order; SKIP LOCKED lets replicas share the work without waiting on each other.
    const steps = db(tx)
      .selectFrom('timelineSteps as s')
      .innerJoin('gracePeriods as g', 'g.id', 's.gracePeriodId')
      .leftJoin('sandboxClocks as c', 'c.platformId', 's.platformId')
      .selectAll('s')
      .select((eb) => [
        rowJson<Selectable<GracePeriods>>('g').as('gp'),
        eb.fn.coalesce('c.offsetMs', sql.lit(0)).as('offsetMs'),
      ])
      .where('s.status', '=', 'scheduled');
    const due =
      platform === undefined
        ? steps.where('s.dueAt', '<=', options.now)
        : steps
            .where('s.platformId', '=', platform.id)
            .where('s.dueAt', '<=', new Date(options.now.getTime() + platform.offsetMs));
    const rows = await due
      .orderBy('s.dueAt')
      .orderBy('s.position')
      .orderBy('s.id')
      .limit(options.limit)
      .forUpdate(['s', 'g'])
      .$if(options.wait !== true, (query) => query.skipLocked())
      .execute();
    return rows.map(({ gp, offsetMs, ...step }) => ({
      step: toStep(step),
      gracePeriod: gracePeriodFromJson(fromRowJson(gp)),
      offsetMs,
    }));
  }

  async markFired(tx: Queryable, fired: FiredStep[]): Promise<void> {
    if (fired.length === 0) return;
    const recordset = JSON.stringify(
      fired.map((f) => ({ id: f.id, fired_at: f.firedAt.toISOString(), recipients: f.recipients })),
    );
    await db(tx)
      .updateTable('timelineSteps')
      .from(
        sql<{
          id: number;
          firedAt: Date;
          recipients: JsonbInput<string[]> | null;
        }>`jsonb_to_recordset(${recordset}::jsonb)`.as<'f'>(
          sql`f(id bigint, fired_at timestamptz, recipients jsonb)`,
        ),
      )
      .set((eb) => ({ status: 'fired', firedAt: eb.ref('f.firedAt'), recipients: eb.ref('f.recipients') }))
      .whereRef('timelineSteps.id', '=', 'f.id')
      .execute();
  }

  async cancelSteps(tx: Queryable, stepIds: string[]): Promise<void> {
    if (stepIds.length === 0) return;
    await db(tx)
      .updateTable('timelineSteps')
      .set({ status: 'cancelled' })
      .where('id', '=', sql<number>`ANY(${stepIds}::bigint[])`)
      .execute();
  }
}
