import { errors } from '@svc/errors';
import type { LogEntryRef } from './log-entry';
import type { ViolationStatus } from './violation';

export type AppealReason = 'parody' | 'false_positive' | 'common_name' | 'authorized' | 'other';
export type AppealStatus = 'pending' | 'upheld' | 'denied' | 'withdrawn';
export type AppealOutcome = 'upheld' | 'denied';

/** The text estimate of a review (docs/spec/service-interface.md, Limits). */
export const APPEAL_REVIEW_ESTIMATE = '24-48 hours';

/** appeal: the hosting platform contests a violation. contest: the box owner contests a resolution. */
export type AppealKind = 'appeal' | 'contest';

export interface Appeal {
  id: string;
  kind: AppealKind;
  /** Who filed it: the hosting platform (appeal) or the box owner (contest). */
  platformId: string;
  violationId: string;
  gracePeriodId: string;
  reason: AppealReason;
  explanation: string;
  evidence: string[];
  status: AppealStatus;
  submittedAt: Date;
  decidedAt: Date | null;
  decidedBy: 'operator' | 'test_helper' | null;
  notes: string | null;
  /** Its decision's place in licensing's transparency log, once appended (docs/spec/contracts.md §16). */
  logEntry?: LogEntryRef | null;
}

/** An appeal as the operator reviews it: with the violation it contests. */
export interface AppealUnderReview {
  appeal: Appeal;
  violation: {
    id: string;
    status: ViolationStatus;
    boxId: string;
    identityName: string;
    /** Null when the hosting platform deleted the avatar's record. */
    avatar: { id: string | null; name: string | null };
  };
}

/** Only a pending appeal is decided; 409 INVALID_STATE otherwise. */
export function decided(
  appeal: Appeal,
  outcome: AppealOutcome,
  by: 'operator' | 'test_helper',
  notes: string | null,
  now: Date,
): Appeal {
  if (appeal.status !== 'pending') {
    throw errors.invalidState(`Appeal ${appeal.id} is ${appeal.status}: it was already decided`, {
      status: appeal.status,
    });
  }
  return { ...appeal, status: outcome, decidedAt: now, decidedBy: by, notes };
}
