import type { LogEntryRef } from './log-entry';
import { errors } from '@svc/errors';
import type { Policy } from '@svc/contracts/common';
import type { AvatarMatch } from '@svc/contracts/detection';
import type { AvatarSnapshot, ResolutionEvidence, ResolvedBy } from './resolution-check';
import type { EnforcementLevel } from './timeline';
import type { Severity } from './severity';

export type ViolationStatus = 'pending' | 'resolved' | 'enforced' | 'appealed' | 'dismissed';
export type Resolution = 'licensed' | 'removed' | 'modified' | 'parody';
/** How a violation closed: a resolution, an upheld appeal, or the box's removal. */
export type Closure = Resolution | 'dismissed' | 'box_removed';

/** Whether a closure is a resolution (a dismissal and a removed box are not: their status is `dismissed`). */
export function isResolution(closure: Closure | null): closure is Resolution {
  return closure === 'licensed' || closure === 'removed' || closure === 'modified' || closure === 'parody';
}

export interface Violation {
  id: string;
  platformId: string;
  avatarRef: string;
  boxId: string;
  claimId: string;
  identityName: string;
  boxOwnerPlatformId: string;
  policy: Policy;
  enforcement: EnforcementLevel;
  policyConfig: Record<string, unknown>;
  status: ViolationStatus;
  severity: Severity;
  detection: Pick<
    AvatarMatch,
    'confidence' | 'layer' | 'classification' | 'matchedVariations' | 'imageMatchScore' | 'parodyLikelihood'
  >;
  detectedAt: Date;
  gracePeriodId: string;
  resolution: Closure | null;
  resolutionNotes: string | null;
  licenseId: string | null;
  resolvedAt: Date | null;
  /** Who closed it with a resolution, and on what evidence (shown to the box owner too). */
  resolvedBy: ResolvedBy | null;
  resolutionEvidence: ResolutionEvidence | null;
  /** The avatar as it was when detected (null for violations recorded before it was kept). */
  detectedAvatar: AvatarSnapshot | null;
  enforcedAt: Date | null;
  /** The newest decision about it in licensing's transparency log, once appended (docs/spec/contracts.md §16). */
  logEntry?: LogEntryRef | null;
}

export type ViolationAction = 'resolve' | 'appeal' | 'uphold' | 'deny' | 'enforce' | 'cancel' | 'reopen';

/** The state machine (docs/spec/service-interface.md, States and transitions): from which states, to which. */
const TRANSITIONS: Record<ViolationAction, { from: readonly ViolationStatus[]; to: ViolationStatus }> = {
  resolve: { from: ['pending', 'appealed'], to: 'resolved' },
  appeal: { from: ['pending'], to: 'appealed' },
  uphold: { from: ['appealed'], to: 'dismissed' },
  deny: { from: ['appealed'], to: 'pending' },
  enforce: { from: ['pending'], to: 'enforced' },
  cancel: { from: ['pending', 'appealed'], to: 'dismissed' },
  // The box owner's contest of a resolution was upheld: the platform has to comply after all.
  reopen: { from: ['resolved'], to: 'pending' },
};

/** True while the violation still asks something of the platform. */
export function isOpen(status: ViolationStatus): boolean {
  return status === 'pending' || status === 'appealed';
}

export function canViolation(status: ViolationStatus, action: ViolationAction): boolean {
  return TRANSITIONS[action].from.includes(status);
}

/** The status after `action`; 409 INVALID_STATE when the action is not allowed from the current one. */
export function nextViolationStatus(
  violation: Pick<Violation, 'id' | 'status'>,
  action: ViolationAction,
): ViolationStatus {
  const transition = TRANSITIONS[action];
  if (!transition.from.includes(violation.status)) {
    throw errors.invalidState(
      `Violation ${violation.id} is ${violation.status}: it cannot be ${verb(action)}`,
      {
        status: violation.status,
        allowedFrom: [...transition.from],
      },
    );
  }
  return transition.to;
}

function verb(action: ViolationAction): string {
  const verbs: Record<ViolationAction, string> = {
    resolve: 'resolved',
    appeal: 'appealed',
    uphold: 'dismissed',
    deny: 'reopened',
    enforce: 'enforced',
    cancel: 'cancelled',
    reopen: 'reopened',
  };
  return verbs[action];
}
