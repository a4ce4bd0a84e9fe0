import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { BoxScan, BoxScanStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Scans of boxes (initial, and again when a box's matchable surface changes), with their progress. */
export class BoxScanRepository implements BoxScanStore {
  async start(tx: Queryable, boxId: string, now: Date): Promise<boolean> {
    const started = await db(tx)
      .insertInto('boxScans')
      .values({ boxId, status: 'in_progress', nextAttemptAt: now, startedAt: now })
      .onConflict((conflict) => conflict.column('boxId').doNothing())
      .returning('boxId')
      .executeTakeFirst();
    return started !== undefined;
  }

  async restart(tx: Queryable, boxId: string, now: Date): Promise<void> {
    await db(tx)
      .insertInto('boxScans')
      .values({ boxId, status: 'in_progress', nextAttemptAt: now, startedAt: now })
      .onConflict((conflict) =>
        conflict.column('boxId').doUpdateSet({
          status: 'in_progress',
          cursorSeq: 0,
          avatarsScanned: 0,
          violationsCreated: 0,
          attempts: 0,
          nextAttemptAt: now,
          leaseUntil: null,
          lastError: null,
          completedAt: null,
          // The fence of the round: a worker holding the previous one compares it.
          startedAt: sql<Date>`greatest(${now}::timestamptz, box_scans.started_at + interval '1 millisecond')`,
        }),
      )
      .execute();
  }

  async leaseDue(tx: Queryable, now: Date, leaseUntil: Date): Promise<BoxScan | null> {
    const row = await db(tx)
      .updateTable('boxScans')
      .set({ leaseUntil })
      .where('boxId', '=', (eb) =>
        eb
          .selectFrom('boxScans')
          .select('boxId')
          .where('status', '=', 'in_progress')
          .where('nextAttemptAt', '<=', now)
          .where((inner) => inner.or([inner('leaseUntil', 'is', null), inner('leaseUntil', '<=', now)]))
          .orderBy('nextAttemptAt')
          .limit(1)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .executeTakeFirst();
    return row ?? null;
  }

  async find(q: Queryable, boxId: string, options: { lock?: boolean } = {}): Promise<BoxScan | null> {
    const row = await db(q)
      .selectFrom('boxScans')
      .selectAll()
      .where('boxId', '=', boxId)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row ?? null;
  }

  async update(tx: Queryable, s: BoxScan, heldUntil?: Date): Promise<boolean> {
    const { numUpdatedRows } = await db(tx)
      .updateTable('boxScans')
      .set({
        status: s.status,
        cursorSeq: s.cursorSeq,
        avatarsScanned: s.avatarsScanned,
        violationsCreated: s.violationsCreated,
        attempts: s.attempts,
        nextAttemptAt: s.nextAttemptAt,
        lastError: s.lastError,
        completedAt: s.completedAt,
        leaseUntil: s.leaseUntil,
      })
      .where('boxId', '=', s.boxId)
      .where('startedAt', '=', s.startedAt)
      // The fence of the lease: a leaseDue since wrote a later lease_until.
      .$if(heldUntil !== undefined, (query) => query.where('leaseUntil', '=', heldUntil ?? new Date(0)))
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }
}
