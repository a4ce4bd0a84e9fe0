import { selectPage, type Queryable } from '@svc/storage';
import type { Avatar, AvatarMatchSummary, EvaluationStatus } from '../domain/avatar';
import type { AvatarStore, Page } from '../domain/ports';
import { fromJson, isoOrNull, toDate, toDateOrNull, toNumber } from '@svc/storage';

export interface AvatarRow {
  ref: string;
  seq: unknown;
  platform_id: string;
  avatar_id: string;
  name: string;
  description: string | null;
  image_url: string | null;
  creator_id: string;
  creator_name: string | null;
  creator_email: string | null;
  user_count: unknown;
  commercial: boolean;
  platform_domain: string | null;
  revision: unknown;
  evaluation: string;
  evaluation_attempts: unknown;
  next_evaluation_at: unknown;
  last_evaluation_error: string | null;
  match: unknown;
  created_at: unknown;
  updated_at: unknown;
  deleted_at: unknown;
}

export function toAvatar(row: AvatarRow): Avatar {
  return {
    ref: row.ref,
    platformId: row.platform_id,
    id: row.avatar_id,
    name: row.name,
    description: row.description,
    imageUrl: row.image_url,
    creatorId: row.creator_id,
    creatorName: row.creator_name,
    creatorEmail: row.creator_email,
    userCount: toNumber(row.user_count),
    commercial: row.commercial,
    platformDomain: row.platform_domain,
    revision: toNumber(row.revision),
    evaluation: row.evaluation as EvaluationStatus,
    evaluationAttempts: toNumber(row.evaluation_attempts),
    nextEvaluationAt: toDateOrNull(row.next_evaluation_at),
    lastEvaluationError: row.last_evaluation_error,
    match: row.match === null ? null : fromJson<AvatarMatchSummary>(row.match),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

/** Avatars reported by platforms. */
/** The avatar's columns in table order, as both writes send them. */
function avatarValues(a: Avatar): unknown[] {
  return [
    a.ref,
    a.platformId,
    a.id,
    a.name,
    a.description,
    a.imageUrl,
    a.creatorId,
    a.creatorName,
    a.creatorEmail,
    a.userCount,
    a.commercial,
    a.platformDomain,
    a.revision,
    a.evaluation,
    a.evaluationAttempts,
    isoOrNull(a.nextEvaluationAt),
    a.lastEvaluationError,
    a.match === null ? null : JSON.stringify(a.match),
    a.createdAt.toISOString(),
    a.updatedAt.toISOString(),
    isoOrNull(a.deletedAt),
  ];
}

export class AvatarRepository implements AvatarStore {
  async insert(tx: Queryable, a: Avatar): Promise<void> {
    await tx.query(
      `INSERT INTO avatars (ref, platform_id, avatar_id, name, description, image_url, creator_id, creator_name,
         creator_email, user_count, commercial, platform_domain, revision, evaluation, evaluation_attempts,
         next_evaluation_at, last_evaluation_error, match, created_at, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::jsonb, $19, $20, $21)`,
      avatarValues(a),
    );
  }

  /** Writes every column but the keys (ref, platform, avatar id); a held evaluation lease is released. */
  async update(tx: Queryable, a: Avatar): Promise<void> {
    await tx.query(
      `UPDATE avatars SET name = $4, description = $5, image_url = $6, creator_id = $7, creator_name = $8,
         creator_email = $9, user_count = $10, commercial = $11, platform_domain = $12, revision = $13,
         evaluation = $14, evaluation_attempts = $15, next_evaluation_at = $16, last_evaluation_error = $17,
         match = $18::jsonb, created_at = $19, updated_at = $20, deleted_at = $21, evaluation_lease_until = NULL
       WHERE ref = $1 AND platform_id = $2 AND avatar_id = $3`,
      avatarValues(a),
    );
  }

  async find(
    q: Queryable,
    platformId: string,
    avatarId: string,
    options: { lock?: boolean } = {},
  ): Promise<Avatar | null> {
    const { rows } = await q.query<AvatarRow>(
      `SELECT * FROM avatars WHERE platform_id = $1 AND avatar_id = $2 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [platformId, avatarId],
    );
    const row = rows[0];
    return row === undefined ? null : toAvatar(row);
  }

  async findByRef(q: Queryable, ref: string, options: { lock?: boolean } = {}): Promise<Avatar | null> {
    const { rows } = await q.query<AvatarRow>(
      `SELECT * FROM avatars WHERE ref = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [ref],
    );
    const row = rows[0];
    return row === undefined ? null : toAvatar(row);
  }

  async findManyByRef(q: Queryable, refs: string[]): Promise<Map<string, Avatar>> {
    const found = new Map<string, Avatar>();
    if (refs.length === 0) return found;
    const { rows } = await q.query<AvatarRow>('SELECT * FROM avatars WHERE ref = ANY($1)', [refs]);
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
    const { rows, total } = await selectPage<AvatarRow>(q, {
      select: '*',
      from: 'avatars',
      where: ['deleted_at IS NULL'],
      equals: [
        ['platform_id', filter.platformId],
        ['evaluation', filter.evaluation],
        ['creator_id', filter.creatorId],
      ],
      orderBy: 'created_at DESC, seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toAvatar), total };
  }

  async leaseDueEvaluations(tx: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<Avatar[]> {
    const { rows } = await tx.query<AvatarRow>(
      `UPDATE avatars SET evaluation_lease_until = $2 WHERE ref IN (
         SELECT ref FROM avatars
         WHERE evaluation = 'pending' AND deleted_at IS NULL AND next_evaluation_at <= $1
           AND (evaluation_lease_until IS NULL OR evaluation_lease_until <= $1)
         ORDER BY next_evaluation_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [now.toISOString(), leaseUntil.toISOString(), limit],
    );
    return rows.map(toAvatar);
  }

  async reevaluateMatching(tx: Queryable, platformId: string, boxId: string, dueAt: Date): Promise<number> {
    // A new revision: an evaluation already under way (made while the license held) is dropped.
    const { rows } = await tx.query(
      `UPDATE avatars SET evaluation = 'pending', evaluation_attempts = 0, next_evaluation_at = $3,
         evaluation_lease_until = NULL, last_evaluation_error = NULL, revision = revision + 1
       WHERE platform_id = $1 AND match ->> 'boxId' = $2 AND deleted_at IS NULL
       RETURNING ref`,
      [platformId, boxId, dueAt.toISOString()],
    );
    return rows.length;
  }

  async recordAnswer(tx: Queryable, ref: string, askedAt: Date): Promise<boolean> {
    const { rows } = await tx.query(
      `UPDATE avatars SET answer_asked_at = $2
        WHERE ref = $1 AND (answer_asked_at IS NULL OR answer_asked_at <= $2)
        RETURNING ref`,
      [ref, askedAt.toISOString()],
    );
    return rows.length > 0;
  }

  async scanPage(q: Queryable, afterSeq: number, limit: number): Promise<{ avatar: Avatar; seq: number }[]> {
    const { rows } = await q.query<AvatarRow>(
      'SELECT * FROM avatars WHERE seq > $1 AND deleted_at IS NULL ORDER BY seq LIMIT $2',
      [afterSeq, limit],
    );
    return rows.map((row) => ({ avatar: toAvatar(row), seq: toNumber(row.seq) }));
  }
}
