import type { Jsonified, Selectable } from '@svc/storage';
import type { Avatar } from '../domain/avatar';
import type { Avatars } from './db.generated';

// An avatar as the domain reads it from a row of avatars, or from the row as jsonb beside its violation.
/** The columns the domain reads: not the ordering `seq`, the evaluation lease or the answer guard. */
export const AVATAR = [
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
  'platformName',
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
export function toAvatar({ avatarId, ...row }: AvatarRow): Avatar {
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
    platformName: a.platformName,
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
