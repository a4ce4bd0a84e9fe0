import { useId, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import { formatDate, formatDateTime, formatNumber, formatRemaining } from '../../api/format';
import {
  useActiveLicensesOn,
  useAppealViolation,
  useResolveViolation,
  useViolation,
  type Appeal,
  type Resolution,
  type ViolationDetail as Violation,
} from '../../api/platform-activity';
import { useClockNow } from '../../api/sandbox-clock';
import { Field, FormError, SelectField } from '../../components/Field';
import { QueryState } from '../../components/Status';

// One violation of an avatar the platform hosts (issue #32, "Platforms"): what matched, its grace
// period and what happened when, and the two ways out the API offers: a resolution, checked
// against the facts (docs/spec/contracts.md §8: a license that covers the avatar, the avatar
// removed or changed, a parody the box admits), or an appeal, which pauses the grace period.

const RESOLUTIONS: { value: Resolution['resolution']; label: string }[] = [
  { value: 'licensed', label: 'Licensed: one of our active licenses on this box covers the avatar' },
  { value: 'removed', label: 'Removed: take the avatar down now' },
  { value: 'modified', label: 'Modified: the avatar was changed and no longer breaks the policy' },
  { value: 'parody', label: 'Parody: the box admits parody and the avatar is one' },
];

const APPEAL_REASONS: { value: Appeal['reason']; label: string }[] = [
  { value: 'false_positive', label: 'The detection is incorrect' },
  { value: 'common_name', label: 'The name is common and not the protected identity' },
  { value: 'parody', label: 'Parody or satire' },
  { value: 'authorized', label: 'The identity authorized it (verbally or informally)' },
  { value: 'other', label: 'Another reason' },
];

/** What happened to the violation, oldest first: the facts its detail form carries, with their times. */
function timelineOf(violation: Violation): { at: string; what: string }[] {
  const events: { at: string; what: string }[] = [{ at: violation.detectedAt, what: 'Detected' }];
  const grace = violation.gracePeriod;
  if (grace.startedAt !== undefined) events.push({ at: grace.startedAt, what: 'Grace period started' });
  const notices = [
    ['day0', 'Notice of day 0 sent'],
    ['day7', 'Reminder of day 7 sent'],
    ['day21', 'Warning of day 21 sent'],
    ['day28', 'Final notice of day 28 sent'],
  ] as const;
  for (const [day, what] of notices) {
    const at = violation.notifications[day].at;
    if (violation.notifications[day].sent && at !== undefined) events.push({ at, what });
  }
  const appeal = violation.appeal;
  if (appeal !== undefined) {
    events.push({ at: appeal.submittedAt, what: `Appealed (${appeal.reason.replace('_', ' ')})` });
    if (appeal.decidedAt !== undefined)
      events.push({ at: appeal.decidedAt, what: `Appeal ${appeal.status}` });
  }
  if (violation.resolvedAt !== undefined && violation.resolvedAt !== null) {
    events.push({ at: violation.resolvedAt, what: `Resolved: ${violation.resolution ?? ''}` });
  }
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * The grace period in words: when it ends while it runs, counted down from `now` on the tenant's
 * clock (the sandbox's, in the sandbox), else what became of it.
 */
function graceOf(v: Violation, now: number): string {
  const grace = v.gracePeriod;
  if (v.status === 'pending') {
    return `ends ${formatDateTime(grace.expiresAt)} (${formatRemaining(Date.parse(grace.expiresAt), now)})`;
  }
  if (v.status === 'appealed') return 'paused while the appeal is reviewed';
  if (v.status === 'enforced') return `ran out ${formatDateTime(grace.expiresAt)}: take the avatar down`;
  return grace.status ?? 'ended';
}

function Resolve({ violation, onDone }: { violation: Violation; onDone: (notice: string) => void }) {
  const resolve = useResolveViolation(violation.id);
  const licenses = useActiveLicensesOn(violation.boxId);
  const [resolution, setResolution] = useState<Resolution['resolution']>('removed');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const notes = String(form.get('notes') ?? '').trim();
    const licenseId = String(form.get('licenseId') ?? '');
    resolve.mutate(
      {
        resolution,
        avatarId: violation.avatar.id,
        ...(resolution === 'licensed' && licenseId !== '' ? { licenseId } : {}),
        ...(notes === '' ? {} : { notes }),
      },
      {
        onSuccess: (resolved) =>
          onDone(`Resolved (${resolved.resolution}) ${formatDateTime(resolved.resolvedAt)}.`),
      },
    );
  };
  return (
    <form aria-labelledby="resolve-title" onSubmit={submit} noValidate>
      <h2 id="resolve-title">Resolve</h2>
      <p className="hint">
        The resolution is checked against the facts; the answer says what would resolve it.
      </p>
      <SelectField
        label="Resolution"
        name="resolution"
        value={resolution}
        onChange={(event) => setResolution(event.target.value as Resolution['resolution'])}
        error={fieldError(resolve.error, 'resolution')}
      >
        {RESOLUTIONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectField>
      {resolution === 'licensed' ? (
        <SelectField label="License" name="licenseId" error={fieldError(resolve.error, 'licenseId')}>
          {(licenses.data ?? []).length === 0 ? (
            <option value="">No active license on this box</option>
          ) : null}
          {(licenses.data ?? []).map((license) => (
            <option key={license.id} value={license.id}>
              {license.tier} license {license.id}, until {formatDate(license.expiresAt)}
            </option>
          ))}
        </SelectField>
      ) : null}
      <Field label="Notes (optional)" name="notes" error={fieldError(resolve.error, 'notes')} />
      <FormError error={formError(resolve.error, ['resolution', 'licenseId', 'notes'])} />
      <button type="submit" disabled={resolve.isPending}>
        {resolve.isPending ? 'Resolving…' : 'Resolve violation'}
      </button>
    </form>
  );
}

function AppealForm({ violation, onDone }: { violation: Violation; onDone: (notice: string) => void }) {
  const appeal = useAppealViolation(violation.id);
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const evidence = String(form.get('evidence') ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    appeal.mutate(
      {
        reason: String(form.get('reason')) as Appeal['reason'],
        explanation: String(form.get('explanation') ?? '').trim(),
        ...(evidence.length === 0 ? {} : { evidence }),
      },
      {
        onSuccess: (appealed) =>
          onDone(
            `Appealed: the grace period is paused while the appeal is reviewed (${appealed.appeal.estimatedReviewTime}).`,
          ),
      },
    );
  };
  const explanationError = fieldError(appeal.error, 'explanation');
  const evidenceError = fieldError(appeal.error, 'evidence', 'evidence.0');
  return (
    <form aria-labelledby="appeal-title" onSubmit={submit} noValidate>
      <h2 id="appeal-title">Appeal</h2>
      <p className="hint">An appeal pauses the grace period until an operator decides it.</p>
      <SelectField
        label="Reason"
        name="reason"
        defaultValue="false_positive"
        error={fieldError(appeal.error, 'reason')}
      >
        {APPEAL_REASONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectField>
      <div className="field">
        <label htmlFor={`${id}-explanation`}>Explanation</label>
        <textarea
          id={`${id}-explanation`}
          name="explanation"
          rows={3}
          aria-invalid={explanationError === undefined ? undefined : true}
          aria-describedby={explanationError === undefined ? undefined : `${id}-explanation-error`}
        />
        {explanationError === undefined ? null : (
          <p className="field-error" id={`${id}-explanation-error`} role="alert">
            {explanationError}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-evidence`}>Evidence (optional, one URL per line)</label>
        <textarea
          id={`${id}-evidence`}
          name="evidence"
          rows={2}
          aria-invalid={evidenceError === undefined ? undefined : true}
          aria-describedby={evidenceError === undefined ? undefined : `${id}-evidence-error`}
        />
        {evidenceError === undefined ? null : (
          <p className="field-error" id={`${id}-evidence-error`} role="alert">
            {evidenceError}
          </p>
        )}
      </div>
      <FormError error={formError(appeal.error, ['reason', 'explanation', 'evidence', 'evidence.0'])} />
      <button type="submit" disabled={appeal.isPending}>
        {appeal.isPending ? 'Appealing…' : 'Appeal violation'}
      </button>
    </form>
  );
}

export function ViolationDetail() {
  const { id = '' } = useParams();
  const violation = useViolation(id);
  const now = useClockNow();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  return (
    <QueryState isPending={violation.isPending} error={violation.error} what="violation">
      {() => {
        const v = violation.data;
        if (v === undefined) return null;
        const open = v.status === 'pending' || v.status === 'appealed' || v.status === 'enforced';
        return (
          <section aria-labelledby="violation-title">
            <p>
              <Link to="/violations">All violations</Link>
            </p>
            <h1 id="violation-title">
              {v.avatar.name}: violation of {v.identityName}
            </h1>
            <p role="status" className="notice">
              {notice}
            </p>
            <dl className="facts">
              <dt>Status</dt>
              <dd>{v.status}</dd>
              <dt>Severity</dt>
              <dd>{v.severity}</dd>
              <dt>Avatar</dt>
              <dd>
                {v.avatar.name} (<code>{v.avatar.id}</code>, {formatNumber(v.avatar.userCount)} users, creator{' '}
                {v.avatar.creatorName ?? v.avatar.creatorId})
              </dd>
              <dt>Matched</dt>
              <dd>
                {v.identityName} ({v.detection.classification.toLowerCase().replace('_', ' ')},{' '}
                {Math.round(v.detection.confidence * 100)} % confidence), box policy {v.policy ?? '—'}
              </dd>
              <dt>Grace period</dt>
              <dd>{graceOf(v, now)}</dd>
              {v.resolutionDetails === undefined ? null : (
                <>
                  <dt>Resolution</dt>
                  <dd>
                    {v.resolutionDetails.resolution} by {v.resolutionDetails.resolvedBy.replace('_', ' ')}
                    {v.resolutionDetails.notes === null || v.resolutionDetails.notes === undefined
                      ? ''
                      : `: ${v.resolutionDetails.notes}`}
                  </dd>
                </>
              )}
            </dl>
            <h2 id="timeline-title">Timeline</h2>
            <ol aria-labelledby="timeline-title" className="timeline">
              {timelineOf(v).map((event) => (
                <li key={`${event.at}:${event.what}`}>
                  <time dateTime={event.at}>{formatDateTime(event.at)}</time> {event.what}
                </li>
              ))}
            </ol>
            {open ? <Resolve violation={v} onDone={setNotice} /> : null}
            {v.status === 'pending' ? <AppealForm violation={v} onDone={setNotice} /> : null}
          </section>
        );
      }}
    </QueryState>
  );
}
