import { avatarMatchKeys, MATCH_KEYS_VERSION } from '@svc/name-matching';
import { jsonb, kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { Avatar, EvaluationStatus } from '../domain/avatar';
import type { AskedAt, AvatarStore, Page, ScanFilter, ScanPage } from '../domain/ports';
import { AVATAR, toAvatar } from './avatar-row';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Every column but the keys (ref, platform, avatar id), as both writes send them. */
function mutableColumns(a: Avatar) {
  return {
    matchKeys: avatarMatchKeys(a.name, a.description),
    matchKeysVersion: MATCH_KEYS_VERSION,
    name: a.name,
    description: a.description,
    imageUrl: a.imageUrl,
    creatorId: a.creatorId,
    creatorName: a.creatorName,
    creatorEmail: a.creatorEmail,
    userCount: a.userCount,
    commercial: a.commercial,
    platformDomain: a.platformDomain,
    platformName: a.platformName,
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
  async insert(tx: Queryable, a: Avatar, holdEvaluationUntil?: Date): Promise<void> {
    await db(tx)
      .insertInto('avatars')
      .values({
        ref: a.ref,
        platformId: a.platformId,
        avatarId: a.id,
        ...mutableColumns(a),
        evaluationLeaseUntil: holdEvaluationUntil ?? null,
      })
      .execute();
  }

  /** Writes every column but the keys (ref, platform, avatar id); the evaluation lease as `insert`. */
  async update(tx: Queryable, a: Avatar, holdEvaluationUntil?: Date): Promise<void> {
    await db(tx)
      .updateTable('avatars')
      .set({ ...mutableColumns(a), evaluationLeaseUntil: holdEvaluationUntil ?? null })
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

  async recordAnswer(tx: Queryable, ref: string, asked: AskedAt): Promise<boolean> {
    // An answer that knew less than the newest one applied is stale: it changes nothing. Between
    // answers of one projection the positions tell; otherwise (an answer without one, a rebuilt
    // projection) the one asked earlier is taken to know less.
    const { knowledge } = asked;
    const recorded = await db(tx)
      .updateTable('avatars')
      .set({
        answerAskedAt: asked.at,
        answerProjection: knowledge?.projection ?? null,
        answerPosition: knowledge?.position ?? null,
      })
      .where('ref', '=', ref)
      .where((eb) => {
        const byTime = eb.or([eb('answerAskedAt', 'is', null), eb('answerAskedAt', '<=', asked.at)]);
        if (knowledge === undefined) return byTime;
        const sameProjection = eb.and([
          eb('answerProjection', '=', knowledge.projection),
          eb('answerPosition', 'is not', null),
        ]);
        return eb.or([
          eb.and([sameProjection, eb('answerPosition', '<=', knowledge.position)]),
          eb.and([eb.not(sameProjection), byTime]),
        ]);
      })
      .returning('ref')
      .executeTakeFirst();
    return recorded !== undefined;
  }

  async scanPage(q: Queryable, afterSeq: number, limit: number, only?: ScanFilter): Promise<ScanPage> {
    let query = db(q)
      .selectFrom('avatars')
      .select([...AVATAR, 'seq'])
      .where('seq', '>', afterSeq)
      .where('deletedAt', 'is', null);
    if (only !== undefined) {
      // Keys by other rules than the box's say nothing: such an avatar is asked about.
      query = query.where((eb) =>
        eb.or([
          eb('imageUrl', 'is not', null),
          eb('matchKeysVersion', 'is', null),
          eb('matchKeysVersion', '!=', only.version),
          sql<boolean>`match_keys && ${sql.val(only.keys)}::integer[]`,
        ]),
      );
    }
    const rows = await query.orderBy('seq').limit(limit).execute();
    const avatars = rows.map(({ seq, ...row }) => ({ avatar: toAvatar(row), seq }));
    if (only === undefined) return { avatars, passed: avatars.length };
    const last = avatars[avatars.length - 1];
    let passed = db(q)
      .selectFrom('avatars')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('seq', '>', afterSeq)
      .where('deletedAt', 'is', null);
    if (last !== undefined) passed = passed.where('seq', '<=', last.seq);
    const { n } = await passed.executeTakeFirstOrThrow();
    return { avatars, passed: Number(n) };
  }

  async fillMatchKeys(q: Queryable, limit: number): Promise<number> {
    const stale = await db(q)
      .selectFrom('avatars')
      .select(['ref', 'name', 'description'])
      .where((eb) =>
        eb.or([eb('matchKeysVersion', 'is', null), eb('matchKeysVersion', '<', MATCH_KEYS_VERSION)]),
      )
      .limit(limit)
      .execute();
    for (const a of stale) {
      await db(q)
        .updateTable('avatars')
        .set({ matchKeys: avatarMatchKeys(a.name, a.description), matchKeysVersion: MATCH_KEYS_VERSION })
        .where('ref', '=', a.ref)
        // A write since the read computed its own keys from its own name.
        .where('name', '=', a.name)
        .where((eb) =>
          a.description === null ? eb('description', 'is', null) : eb('description', '=', a.description),
        )
        .execute();
    }
    return stale.length;
  }
}
