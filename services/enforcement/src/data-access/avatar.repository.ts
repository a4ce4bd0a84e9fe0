import { jsonb, kyselyOn, pageOf, sql, type Jsonified, type Queryable, type Selectable } from '@svc/storage';
import type { Avatar, EvaluationStatus } from '../domain/avatar';
import type { AvatarStore, Page } from '../domain/ports';
import type { Avatars, DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** The columns the domain reads: not the ordering `seq`, the evaluation lease or the answer guard. */
const AVATAR = [
  'ref',
  'platformId',
  'avatarId',
  'name',
  'description',
  'imageUrl',
  'creatorId',
  'creatorName',
  'creatorEmail',
  'userCount',
  'commercial',
  'platformDomain',
  'revision',
  'evaluation',
  'evaluationAttempts',
  'nextEvaluationAt',
  'lastEvaluationError',
  'match',
  'createdAt',
  'updatedAt',
  'deletedAt',
] as const;

type AvatarRow = Pick<Selectable<Avatars>, (typeof AVATAR)[number]>;

// The one renaming: `ref` is ours, `id` the platform's own id, stored as `avatar_id`.
function toAvatar({ avatarId, ...row }: AvatarRow): Avatar {
  return { ...row, id: avatarId };
}

const dateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));

/** An avatar read as jsonb (beside its violation): the dates come back as ISO strings. */
export function avatarFromJson(a: Jsonified<Selectable<Avatars>>): Avatar {
  return toAvatar({
    ref: a.ref,
    platformId: a.platformId,
    avatarId: a.avatarId,
    name: a.name,
    description: a.description,
    imageUrl: a.imageUrl,
    creatorId: a.creatorId,
    creatorName: a.creatorName,
    creatorEmail: a.creatorEmail,
    userCount: a.userCount,
    commercial: a.commercial,
    platformDomain: a.platformDomain,
    revision: a.revision,
    evaluation: a.evaluation,
    evaluationAttempts: a.evaluationAttempts,
    nextEvaluationAt: dateOrNull(a.nextEvaluationAt),
    lastEvaluationError: a.lastEvaluationError,
    match: a.match,
    createdAt: new Date(a.createdAt),
    updatedAt: new Date(a.updatedAt),
    deletedAt: dateOrNull(a.deletedAt),
  });
}

/** Every column but the keys (ref, platform, avatar id), as both writes send them. */
function mutableColumns(a: Avatar) {
  return {
    name: a.name,
    description: a.description,
    imageUrl: a.imageUrl,
    creatorId: a.creatorId,
    creatorName: a.creatorName,
    creatorEmail: a.creatorEmail,
    userCount: a.userCount,
    commercial: a.commercial,
    platformDomain: a.platformDomain,
    revision: a.revision,
    evaluation: a.evaluation,
    evaluationAttempts: a.evaluationAttempts,
    nextEvaluationAt: a.nextEvaluationAt,
    lastEvaluationError: a.lastEvaluationError,
    match: a.match === null ? null : jsonb(a.match),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    deletedAt: a.deletedAt,
  };
}

/** Avatars reported by platforms. */
export class AvatarRepository implements AvatarStore {
  async insert(tx: Queryable, a: Avatar): Promise<void> {
    await db(tx)
      .insertInto('avatars')
      .values({ ref: a.ref, platformId: a.platformId, avatarId: a.id, ...mutableColumns(a) })
      .execute();
  }

  /** Writes every column but the keys (ref, platform, avatar id); a held evaluation lease is released. */
  async update(tx: Queryable, a: Avatar): Promise<void> {
    await db(tx)
      .updateTable('avatars')
      .set({ ...mutableColumns(a), evaluationLeaseUntil: null })
      .where('ref', '=', a.ref)
      .where('platformId', '=', a.platformId)
      .where('avatarId', '=', a.id)
      .execute();
  }

  async find(
    q: Queryable,
    platformId: string,
    avatarId: string,
    options: { lock?: boolean } = {},
  ): Promise<Avatar | null> {
    const row = await db(q)
      .selectFrom('avatars')
      .select(AVATAR)
      .where('platformId', '=', platformId)
      .where('avatarId', '=', avatarId)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row === undefined ? null : toAvatar(row);
  }

  async findByRef(q: Queryable, ref: string, options: { lock?: boolean } = {}): Promise<Avatar | null> {
    const row = await db(q)
      .selectFrom('avatars')
      .select(AVATAR)
      .where('ref', '=', ref)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row === undefined ? null : toAvatar(row);
  }

  async findManyByRef(q: Queryable, refs: string[]): Promise<Map<string, Avatar>> {
    const found = new Map<string, Avatar>();
    if (refs.length === 0) return found;
    const rows = await db(q)
      .selectFrom('avatars')
      .select(AVATAR)
      .where((eb) => eb('ref', '=', eb.fn.any(eb.val(refs))))
      .execute();
    for (const row of rows) found.set(row.ref, toAvatar(row));
    return found;
  }

  async list(
    q: Queryable,
    filter: Page & {
      platformId: string;
      evaluation?: EvaluationStatus | undefined;
      creatorId?: string | undefined;
    },
  ): Promise<{ items: Avatar[]; total: number }> {
    let matching = db(q)
      .selectFrom('avatars')
      .select(AVATAR)
      .where('deletedAt', 'is', null)
      .where('platformId', '=', filter.platformId);
    if (filter.evaluation !== undefined) matching = matching.where('evaluation', '=', filter.evaluation);
    if (filter.creatorId !== undefined) matching = matching.where('creatorId', '=', filter.creatorId);
    const { rows, total } = await pageOf(
      matching.orderBy('createdAt', 'desc').orderBy('seq', 'desc'),
      filter,
    );
    return { items: rows.map(toAvatar), total };
  }

  async leaseDueEvaluations(tx: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<Avatar[]> {
    const rows = await db(tx)
      .updateTable('avatars')
      .set({ evaluationLeaseUntil: leaseUntil })
      .where('ref', 'in', (eb) =>
        eb
          .selectFrom('avatars')
          .select('ref')
          .where('evaluation', '=', 'pending')
          .where('deletedAt', 'is', null)
          .where('nextEvaluationAt', '<=', now)
          .where((inner) =>
            inner.or([inner('evaluationLeaseUntil', 'is', null), inner('evaluationLeaseUntil', '<=', now)]),
          )
          .orderBy('nextEvaluationAt')
          .orderBy('seq')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(AVATAR)
      .execute();
    return rows.map(toAvatar);
  }

  async reevaluateMatching(tx: Queryable, platformId: string, boxId: string, dueAt: Date): Promise<number> {
    // A new revision: an evaluation already under way (made while the license held) is dropped.
    const rows = await db(tx)
      .updateTable('avatars')
      .set((eb) => ({
        evaluation: 'pending',
        evaluationAttempts: 0,
        nextEvaluationAt: dueAt,
        evaluationLeaseUntil: null,
        lastEvaluationError: null,
        revision: eb('revision', '+', 1),
      }))
      .where('platformId', '=', platformId)
      // The expression of avatars_match_box_idx.
      .where(sql<string>`${sql.ref('match')} ->> 'boxId'`, '=', boxId)
      .where('deletedAt', 'is', null)
      .returning('ref')
      .execute();
    return rows.length;
  }

  async recordAnswer(tx: Queryable, ref: string, askedAt: Date): Promise<boolean> {
    // An answer asked before the newest one applied is stale: it changes nothing.
    const recorded = await db(tx)
      .updateTable('avatars')
      .set({ answerAskedAt: askedAt })
      .where('ref', '=', ref)
      .where((eb) => eb.or([eb('answerAskedAt', 'is', null), eb('answerAskedAt', '<=', askedAt)]))
      .returning('ref')
      .executeTakeFirst();
    return recorded !== undefined;
  }

  async scanPage(q: Queryable, afterSeq: number, limit: number): Promise<{ avatar: Avatar; seq: number }[]> {
    const rows = await db(q)
      .selectFrom('avatars')
      .select([...AVATAR, 'seq'])
      .where('seq', '>', afterSeq)
      .where('deletedAt', 'is', null)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(({ seq, ...row }) => ({ avatar: toAvatar(row), seq }));
  }
}
