import { jsonb, kyselyOn, pageOf, type Queryable, type Selectable } from '@svc/storage';
import type { Appeal, AppealKind, AppealStatus, AppealUnderReview } from '../domain/appeal';
import type { LogEntryRef } from '../domain/log-entry';
import { logEntryOf } from './log-entry';
import type { AppealStore, Page } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

function toAppeal({ logEntryIndex, logEntryLeafHash, ...row }: Selectable<DB['appeals']>): Appeal {
  return { ...row, logEntry: logEntryOf(logEntryIndex, logEntryLeafHash) };
}

/** Appeals (and the box owner's contests: kind `contest`). */
export class AppealRepository implements AppealStore {
  async insert(tx: Queryable, a: Appeal): Promise<void> {
    await db(tx)
      .insertInto('appeals')
      .values({
        id: a.id,
        kind: a.kind,
        platformId: a.platformId,
        violationId: a.violationId,
        gracePeriodId: a.gracePeriodId,
        reason: a.reason,
        explanation: a.explanation,
        evidence: jsonb(a.evidence),
        status: a.status,
        submittedAt: a.submittedAt,
        decidedAt: a.decidedAt,
        decidedBy: a.decidedBy,
        notes: a.notes,
      })
      .execute();
  }

  async update(tx: Queryable, a: Appeal): Promise<void> {
    await db(tx)
      .updateTable('appeals')
      .set({ status: a.status, decidedAt: a.decidedAt, decidedBy: a.decidedBy, notes: a.notes })
      .where('id', '=', a.id)
      .execute();
  }

  /** Where the appeal's decision sits in the log; an older entry never replaces a newer one. */
  async recordLogEntry(tx: Queryable, id: string, entry: LogEntryRef): Promise<void> {
    await db(tx)
      .updateTable('appeals')
      .set({ logEntryIndex: entry.index, logEntryLeafHash: entry.leafHash })
      .where('id', '=', id)
      .where((w) => w.or([w('logEntryIndex', 'is', null), w('logEntryIndex', '<', entry.index)]))
      .execute();
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<Appeal | null> {
    const row = await db(q)
      .selectFrom('appeals')
      .selectAll()
      .where('id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row === undefined ? null : toAppeal(row);
  }

  async latestFor(
    q: Queryable,
    violationIds: string[],
    kind: AppealKind = 'appeal',
  ): Promise<Map<string, Appeal>> {
    const found = new Map<string, Appeal>();
    if (violationIds.length === 0) return found;
    const rows = await db(q)
      .selectFrom('appeals')
      .distinctOn('violationId')
      .selectAll()
      .where((eb) => eb('violationId', '=', eb.fn.any(eb.val(violationIds))))
      .where('kind', '=', kind)
      .orderBy('violationId')
      .orderBy('submittedAt', 'desc')
      .orderBy('id', 'desc')
      .execute();
    for (const row of rows) found.set(row.violationId, toAppeal(row));
    return found;
  }

  async listForReview(
    q: Queryable,
    filter: Page & { status: AppealStatus },
  ): Promise<{ items: AppealUnderReview[]; total: number }> {
    const query = db(q)
      .selectFrom('appeals as a')
      .innerJoin('violations as v', 'v.id', 'a.violationId')
      .leftJoin('avatars as av', 'av.ref', 'v.avatarRef')
      .selectAll('a')
      .select([
        'v.status as violationStatus',
        'v.boxId',
        'v.identityName',
        'av.avatarId',
        'av.name as avatarName',
      ])
      .where('a.status', '=', filter.status)
      .orderBy('a.submittedAt', 'asc')
      .orderBy('a.id', 'asc');
    const { rows, total } = await pageOf(query, filter);
    return {
      items: rows.map(({ violationStatus, boxId, identityName, avatarId, avatarName, ...appeal }) => ({
        appeal: toAppeal(appeal),
        violation: {
          id: appeal.violationId,
          status: violationStatus,
          boxId,
          identityName,
          avatar: { id: avatarId, name: avatarName },
        },
      })),
      total,
    };
  }

  async withdrawPending(tx: Queryable, violationId: string, at: Date): Promise<void> {
    await db(tx)
      .updateTable('appeals')
      .set({ status: 'withdrawn', decidedAt: at })
      .where('violationId', '=', violationId)
      .where('status', '=', 'pending')
      .where('kind', '=', 'appeal')
      .execute();
  }
}
