import type { Policy } from '@svc/contracts/common';
import type { MatchOutcome } from './policy-breach';

export type EvaluationStatus = 'pending' | 'completed';

/** What detection matched, as the avatar remembers it. */
export interface AvatarMatchSummary {
  boxId: string;
  identityName: string;
  policy: Policy;
  confidence: number;
  outcome: MatchOutcome;
}

/** An avatar a platform hosts (docs/spec/contracts.md §8). `ref` is ours; `id` is the platform's own. */
export interface Avatar {
  ref: string;
  platformId: string;
  id: string;
  name: string;
  description: string | null;
  imageUrl: string | null;
  creatorId: string;
  creatorName: string | null;
  creatorEmail: string | null;
  userCount: number;
  commercial: boolean;
  platformDomain: string | null;
  /** The hosting platform's name when it reported the avatar (null before names were kept). */
  platformName: string | null;
  /** Grows with every change: an evaluation of an older revision is not applied. */
  revision: number;
  evaluation: EvaluationStatus;
  evaluationAttempts: number;
  nextEvaluationAt: Date | null;
  lastEvaluationError: string | null;
  match: AvatarMatchSummary | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** The avatar fields a platform reports or changes. */
export interface AvatarInput {
  name: string;
  description: string | null;
  imageUrl: string | null;
  creatorId: string;
  creatorName: string | null;
  creatorEmail: string | null;
  userCount: number;
  commercial: boolean;
}

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 5 * 60_000;

/** When a failed evaluation is tried again: 1 s, 2 s, 4 s… at most 5 minutes. */
export function nextEvaluationDelay(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
}

/** Whom the day-0 and reminder notifications go to: the creator, when the platform shared an e-mail. */
export function recipientsOf(avatar: Pick<Avatar, 'creatorEmail'>): string[] {
  return avatar.creatorEmail === null ? [] : [avatar.creatorEmail];
}
