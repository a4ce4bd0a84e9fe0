import { APPEAL_REVIEW_ESTIMATE, type Appeal } from '../../domain/appeal';
import type { LogEntryRef } from '../../domain/log-entry';
import type { Avatar } from '../../domain/avatar';
import { daysRemaining, type GracePeriod } from '../../domain/grace-period';
import { notificationsOf, type NotificationState } from '../../domain/notifications';
import type { BoxViolationView, CaseView } from '../../domain/query-enforcement.use-case';
import { isResolution, type Violation } from '../../domain/violation';
import { resolutionOptions } from '../../domain/resolution-options';
import type { ResolutionEvidence } from '../../domain/resolution-check';
import type { ViolationCase } from '../../domain/violation-lifecycle';

// The public forms (docs/spec/service-interface.md: Violation, Grace period; docs/spec/contracts.md §8). Personal data
// (creatorEmail, recipients) appears only in detail forms.

const iso = (d: Date) => d.toISOString();

export function avatarForm(avatar: Avatar, openViolations: string[], detail: boolean) {
  return {
    id: avatar.id,
    name: avatar.name,
    description: avatar.description,
    imageUrl: avatar.imageUrl,
    creatorId: avatar.creatorId,
    creatorName: avatar.creatorName,
    ...(detail ? { creatorEmail: avatar.creatorEmail } : {}),
    userCount: avatar.userCount,
    commercial: avatar.commercial,
    evaluation: avatar.evaluation,
    match: avatar.match,
    openViolations,
    createdAt: iso(avatar.createdAt),
    updatedAt: iso(avatar.updatedAt),
  };
}

function sentForm(n: NotificationState) {
  return { sent: n.sent, ...(n.at === undefined ? {} : { at: iso(n.at) }) };
}

function violationNotifications(view: CaseView) {
  const n = notificationsOf(view.gracePeriod, view.steps);
  return {
    day0: sentForm(n.day0),
    day7: sentForm(n.day7),
    day21: sentForm(n.day21),
    day28: sentForm(n.day28),
  };
}

function gracePeriodNotifications(view: CaseView) {
  const form = (state: NotificationState) => ({
    ...sentForm(state),
    ...(state.scheduledAt === undefined ? {} : { scheduledAt: iso(state.scheduledAt) }),
    ...(state.recipients === undefined ? {} : { recipients: state.recipients }),
  });
  const n = notificationsOf(view.gracePeriod, view.steps);
  return { day0: form(n.day0), day7: form(n.day7), day21: form(n.day21), day28: form(n.day28) };
}

export function appealForm(appeal: Appeal) {
  return {
    id: appeal.id,
    reason: appeal.reason,
    status: appeal.status,
    submittedAt: iso(appeal.submittedAt),
    estimatedReviewTime: APPEAL_REVIEW_ESTIMATE,
    ...(appeal.decidedAt === null ? {} : { decidedAt: iso(appeal.decidedAt) }),
  };
}

export function contestForm(contest: Appeal) {
  // Only a platform's appeal is withdrawn (its violation resolved meanwhile); a contest never is.
  if (contest.status === 'withdrawn') throw new Error(`Contest ${contest.id} is withdrawn: only appeals are`);
  return {
    id: contest.id,
    status: contest.status,
    submittedAt: iso(contest.submittedAt),
    estimatedReviewTime: APPEAL_REVIEW_ESTIMATE,
    ...(contest.decidedAt === null ? {} : { decidedAt: iso(contest.decidedAt) }),
  };
}

/** How a violation was resolved and on what evidence; null while it is not resolved by a resolution. */
export function resolutionDetails(violation: Violation, contest: Appeal | null) {
  if (
    violation.status !== 'resolved' ||
    !isResolution(violation.resolution) ||
    violation.resolvedAt === null ||
    violation.resolvedBy === null
  )
    return null;
  const evidence = violation.resolutionEvidence ?? {};
  return {
    resolution: violation.resolution,
    resolvedAt: iso(violation.resolvedAt),
    resolvedBy: violation.resolvedBy,
    notes: violation.resolutionNotes,
    license: evidence.license ?? null,
    avatarChange: evidence.avatar === undefined ? null : avatarChangeOf(violation, evidence.avatar),
    reevaluation: evidence.reevaluation ?? null,
    contest: contest === null ? null : contestForm(contest),
  };
}

/** The avatar as detected and as resolved (`removed`: when it was taken down). */
function avatarChangeOf(violation: Violation, avatar: NonNullable<ResolutionEvidence['avatar']>) {
  const { removedAt, ...resolved } = avatar;
  return { detected: violation.detectedAvatar, resolved, removedAt: removedAt ?? null };
}

export function appealDetail(appeal: Appeal) {
  return {
    id: appeal.id,
    kind: appeal.kind,
    violationId: appeal.violationId,
    gracePeriodId: appeal.gracePeriodId,
    reason: appeal.reason,
    explanation: appeal.explanation,
    evidence: appeal.evidence,
    status: appeal.status,
    submittedAt: iso(appeal.submittedAt),
    estimatedReviewTime: APPEAL_REVIEW_ESTIMATE,
    decidedAt: appeal.decidedAt === null ? null : iso(appeal.decidedAt),
    notes: appeal.notes,
    ...logEntryField(appeal.logEntry),
  };
}

/** `logEntry` once the resource's decision is in the transparency log (docs/spec/contracts.md §16). */
function logEntryField(entry: LogEntryRef | null | undefined): { logEntry?: LogEntryRef } {
  return entry ? { logEntry: { index: entry.index, leafHash: entry.leafHash } } : {};
}

function resolutionFields(violation: { resolution: string | null; resolvedAt: Date | null }) {
  return {
    ...(violation.resolution === null ? {} : { resolution: violation.resolution }),
    ...(violation.resolvedAt === null ? {} : { resolvedAt: iso(violation.resolvedAt) }),
  };
}

export function violationListItem(view: CaseView) {
  const { violation, gracePeriod, avatar } = view;
  return {
    id: violation.id,
    boxId: violation.boxId,
    identityName: violation.identityName,
    status: violation.status,
    severity: violation.severity,
    detectedAt: iso(violation.detectedAt),
    avatar: { id: avatar.id, name: avatar.name, creatorId: avatar.creatorId, userCount: avatar.userCount },
    detection: {
      confidence: violation.detection.confidence,
      layer: violation.detection.layer,
      classification: violation.detection.classification,
    },
    gracePeriod: {
      id: gracePeriod.id,
      expiresAt: iso(gracePeriod.expiresAt),
      daysRemaining: daysRemaining(gracePeriod, view.now),
    },
    notifications: violationNotifications(view),
    ...resolutionFields(violation),
    ...logEntryField(violation.logEntry),
  };
}

export function violationDetail(view: CaseView) {
  const item = violationListItem(view);
  const { violation, gracePeriod, avatar } = view;
  return {
    ...item,
    policy: violation.policy,
    avatar: {
      ...item.avatar,
      description: avatar.description,
      imageUrl: avatar.imageUrl,
      creatorName: avatar.creatorName,
      createdAt: iso(avatar.createdAt),
    },
    detection: { ...item.detection, ...violation.detection },
    gracePeriod: {
      ...item.gracePeriod,
      status: gracePeriod.status,
      startedAt: iso(gracePeriod.startedAt),
      notifications: item.notifications,
    },
    resolutionOptions: resolutionOptions(violation, avatar.id, view.policyConfig),
    ...(view.appeal === null ? {} : { appeal: appealForm(view.appeal) }),
    ...optional('resolutionDetails', resolutionDetails(violation, view.contest)),
  };
}

function optional<K extends string, V>(key: K, value: V | null): Partial<Record<K, V>> {
  return (value === null ? {} : { [key]: value }) as Partial<Record<K, V>>;
}

/** The box owner's form: no personal data of the hosting platform's users. */
export function boxViolationItem(view: BoxViolationView) {
  const { violation, gracePeriod, avatar } = view;
  const resolved = violation.status === 'resolved';
  return {
    id: violation.id,
    boxId: violation.boxId,
    identityName: violation.identityName,
    platformId: violation.platformId,
    platformName: avatar.platformName,
    status: violation.status,
    severity: violation.severity,
    detectedAt: iso(violation.detectedAt),
    avatar: {
      id: avatar.id,
      name: avatar.name,
      description: avatar.description,
      imageUrl: avatar.imageUrl,
      userCount: avatar.userCount,
      status: avatar.deletedAt === null ? ('reported' as const) : ('removed' as const),
    },
    detection: violation.detection,
    gracePeriod: {
      id: gracePeriod.id,
      status: gracePeriod.status,
      expiresAt: iso(gracePeriod.expiresAt),
      daysRemaining: daysRemaining(gracePeriod, view.now),
    },
    resolution: resolutionDetails(violation, view.contest),
    contestableUntil:
      resolved && view.now.getTime() < gracePeriod.expiresAt.getTime() ? iso(gracePeriod.expiresAt) : null,
    ...logEntryField(violation.logEntry),
  };
}

function avatarStatus(view: CaseView): 'active' | 'removed' | 'compliant' | 'deactivated' {
  if (view.avatar.deletedAt !== null) return 'removed';
  if (view.gracePeriod.status === 'resolved' || view.gracePeriod.status === 'cancelled') return 'compliant';
  if (view.gracePeriod.status === 'expired') return 'deactivated';
  return 'active';
}

function gracePeriodCommon(gp: GracePeriod, view: CaseView) {
  return {
    id: gp.id,
    boxId: gp.boxId,
    violationId: gp.violationId,
    identityName: gp.identityName,
    status: gp.status,
    startedAt: iso(gp.startedAt),
    expiresAt: iso(gp.expiresAt),
    daysRemaining: daysRemaining(gp, view.now),
  };
}

export function gracePeriodListItem(view: CaseView) {
  const { gracePeriod, avatar } = view;
  const open = gracePeriod.status === 'active' || gracePeriod.status === 'paused';
  return {
    ...gracePeriodCommon(gracePeriod, view),
    affectedAvatars: open && avatar.deletedAt === null ? 1 : 0,
    affectedUsers: open && avatar.deletedAt === null ? avatar.userCount : 0,
    ...resolutionFields(gracePeriod),
  };
}

export function gracePeriodDetail(view: CaseView) {
  const { gracePeriod, avatar, violation } = view;
  return {
    ...gracePeriodCommon(gracePeriod, view),
    policy: gracePeriod.policy,
    affectedAvatars: [
      {
        avatarId: avatar.id,
        name: avatar.name,
        creatorId: avatar.creatorId,
        creatorEmail: avatar.creatorEmail,
        userCount: avatar.userCount,
        status: avatarStatus(view),
      },
    ],
    notifications: gracePeriodNotifications(view),
    resolutionOptions: resolutionOptions(violation, avatar.id, view.policyConfig).map(
      ({ type, available, pricing }) => ({
        type,
        available,
        ...(pricing === undefined ? {} : { pricing }),
      }),
    ),
    ...resolutionFields(gracePeriod),
  };
}

export function caseSummary(result: ViolationCase) {
  return {
    violation: { id: result.violation.id, status: result.violation.status },
    gracePeriod: {
      id: result.gracePeriod.id,
      status: result.gracePeriod.status,
      expiresAt: iso(result.gracePeriod.expiresAt),
    },
  };
}
