import { useEffect, useRef, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatDate, formatDateTime, formatRemaining } from '../../api/format';
import { useContestResolution, type BoxViolation } from '../../api/owner';
import { Field, FormError } from '../../components/Field';

// One violation of a box as its owner sees it: the grace period's time left, how it was resolved, and the contest of that resolution.

const RESOLVED_BY: Record<NonNullable<BoxViolation['resolution']>['resolvedBy'], string> = {
  platform: 'the platform',
  license: 'a license',
  avatar_change: 'a change to the avatar',
};

/**
 * `now`: the dashboard's clock (api/sandbox-clock.ts). A platform's sandbox clock is its own: the
 * box owner counts down on the browser's clock, from the deadline the API gives.
 */
export function GracePeriod({ violation, now }: { violation: BoxViolation; now: number }) {
  const { gracePeriod } = violation;
  const ends = formatDateTime(gracePeriod.expiresAt);
  switch (gracePeriod.status) {
    case 'active':
      return (
        <>
          <span className="badge">active</span> ends {ends} (
          {formatRemaining(Date.parse(gracePeriod.expiresAt), now)})
        </>
      );
    case 'paused':
      return (
        <>
          <span className="badge">paused</span> while an appeal is reviewed
        </>
      );
    case 'expired':
      return (
        <>
          <span className="badge">expired</span> {ends}
        </>
      );
    default:
      return <span className="badge">{gracePeriod.status}</span>;
  }
}

/**
 * Whether the row offers to contest the resolution: resolved, not contested yet, with a deadline.
 * Whether the deadline has passed is the API's to say (its message shows in the form).
 */
function contestable(violation: BoxViolation): boolean {
  return (
    violation.status === 'resolved' &&
    violation.resolution !== null &&
    violation.resolution.contest === null &&
    violation.contestableUntil !== null
  );
}

export function Resolution({ violation, onContest }: { violation: BoxViolation; onContest: () => void }) {
  const { resolution } = violation;
  if (resolution === null) return <>—</>;
  return (
    <>
      {resolution.resolution} by {RESOLVED_BY[resolution.resolvedBy]}, {formatDate(resolution.resolvedAt)}
      {resolution.contest === null ? null : (
        <>
          <br />
          <span className="badge">contest {resolution.contest.status}</span>
        </>
      )}
      {contestable(violation) ? (
        <>
          <br />
          <span className="hint">contestable until {formatDateTime(violation.contestableUntil ?? '')}</span>
          <br />
          <button
            type="button"
            className="link-button"
            aria-label={`Contest the resolution of ${violation.avatar.name}…`}
            onClick={onContest}
          >
            Contest…
          </button>
        </>
      ) : null}
    </>
  );
}

/** Contest one resolution: why it does not hold; the API's message next to the field. */
export function ContestForm({
  violation,
  boxId,
  onDone,
}: {
  violation: BoxViolation;
  boxId: string;
  onDone: (notice: string | undefined) => void;
}) {
  const contest = useContestResolution(boxId);
  const region = useRef<HTMLFormElement>(null);
  useEffect(() => region.current?.querySelector('input')?.focus(), []);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const explanation = String(new FormData(event.currentTarget).get('explanation') ?? '');
    contest.mutate(
      { id: violation.id, explanation },
      {
        onSuccess: (contested) =>
          onDone(
            `Contested the resolution of ${violation.avatar.name}: an operator reviews it (${contested.contest.estimatedReviewTime}).`,
          ),
      },
    );
  };
  return (
    <form
      ref={region}
      className="card"
      onSubmit={submit}
      noValidate
      aria-label={`Contest the resolution of ${violation.avatar.name}`}
    >
      <h3>Contest the resolution of {violation.avatar.name}</h3>
      <p>
        The platform says it was {violation.resolution?.resolution}. If that does not hold (for example the
        avatar is still online under the name), an operator reviews it; upheld, the violation is pending again
        with the time it had left.
      </p>
      <Field
        label="Why the resolution does not hold"
        name="explanation"
        error={fieldError(contest.error, 'explanation')}
      />
      <FormError error={formError(contest.error, ['explanation'])} />
      <div className="actions">
        <button type="submit" disabled={contest.isPending}>
          {contest.isPending ? 'Sending…' : 'Contest the resolution'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
