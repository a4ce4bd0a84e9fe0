import { useState, type FormEvent } from 'react';
import { fieldError, formError } from '../../api/form-errors';
import { formatDateTime } from '../../api/format';
import { useAdvanceTime } from '../../api/platform-activity';
import { useSession } from '../../api/session';
import { FormError, SelectField } from '../../components/Field';

const STEPS = [
  { seconds: 6 * 3600, label: '6 hours (the first reminder of a sandbox grace period)' },
  { seconds: 18 * 3600, label: '18 hours (the second reminder)' },
  { seconds: 22 * 3600, label: '22 hours (the final warning)' },
  { seconds: 25 * 3600, label: '25 hours (past the end of a 24-hour grace period)' },
  { seconds: 31 * 86_400, label: '31 days (a monthly license runs out)' },
];

/**
 * Sandbox only: moves this platform's clock forward (the test helper advance-time). Every reminder,
 * expiry and enforcement that falls due fires, and the lists on the page are read again.
 */
export function SandboxClock() {
  const { data: session } = useSession();
  const advance = useAdvanceTime();
  const [seconds, setSeconds] = useState(String(STEPS[3]?.seconds ?? 3600));
  if (session?.environment !== 'sandbox') return null;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    advance.mutate(Number(seconds));
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Sandbox clock" className="card">
      <h2>Sandbox clock</h2>
      <p className="hint">
        Sandbox grace periods last 24 hours (reminders at hours 6, 18 and 22). Move your clock to watch the
        timeline fire; only your own sandbox is affected.
      </p>
      <SelectField
        label="Advance by"
        name="seconds"
        value={seconds}
        onChange={(event) => setSeconds(event.target.value)}
        error={fieldError(advance.error, 'seconds')}
      >
        {STEPS.map((step) => (
          <option key={step.seconds} value={step.seconds}>
            {step.label}
          </option>
        ))}
      </SelectField>
      <FormError error={formError(advance.error, ['seconds'])} />
      <button type="submit" disabled={advance.isPending}>
        {advance.isPending ? 'Advancing…' : 'Advance time'}
      </button>
      <p role="status">
        {advance.data === undefined
          ? null
          : `Your sandbox clock is now ${formatDateTime(advance.data.now)}: ${advance.data.stepsFired} timed step${advance.data.stepsFired === 1 ? '' : 's'} fired.`}
      </p>
    </form>
  );
}
