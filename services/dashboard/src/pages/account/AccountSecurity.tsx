import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { fieldError, formError } from '../../api/form-errors';
import {
  useAccountSecurity,
  useChangePassword,
  useConfirmTotp,
  useDisableTotp,
  useSession,
  useSignOutEverywhere,
  useStartTotp,
} from '../../api/session';
import { Field, FormError } from '../../components/Field';
import { Loading } from '../../components/Status';

function ChangePassword() {
  const change = useChangePassword();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = event.currentTarget;
    const form = new FormData(target);
    change.mutate(
      {
        currentPassword: String(form.get('currentPassword') ?? ''),
        newPassword: String(form.get('newPassword') ?? ''),
      },
      { onSuccess: () => target.reset() },
    );
  };
  return (
    <section aria-labelledby="password-title" className="card">
      <h2 id="password-title">Password</h2>
      <form onSubmit={submit} noValidate>
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={fieldError(change.error, 'currentPassword')}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 12 characters, not a common or breached password. Your other sessions end."
          error={fieldError(change.error, 'newPassword')}
        />
        <FormError error={formError(change.error, ['currentPassword', 'newPassword'])} />
        {change.data === undefined ? null : (
          <p role="status">
            Password changed. {change.data.endedSessions} other session
            {change.data.endedSessions === 1 ? '' : 's'} ended.
          </p>
        )}
        <button type="submit" disabled={change.isPending}>
          Change password
        </button>
      </form>
    </section>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div className="card" role="region" aria-labelledby="recovery-title" tabIndex={-1}>
      <h2 id="recovery-title">Recovery codes</h2>
      <p>
        Two-step sign-in is on. Keep these codes offline: each signs in once in place of a code when the
        authenticator is lost. They are shown once.
      </p>
      <ul aria-label="Recovery codes" className="secret">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() => void navigator.clipboard?.writeText(codes.join('\n'))}
        >
          Copy
        </button>
        <button type="button" onClick={onDone}>
          I have stored them
        </button>
      </div>
    </div>
  );
}

function TwoStep() {
  const security = useAccountSecurity();
  const start = useStartTotp();
  const confirm = useConfirmTotp();
  const disable = useDisableTotp();
  const [codes, setCodes] = useState<string[] | undefined>(undefined);
  if (codes !== undefined) return <RecoveryCodes codes={codes} onDone={() => setCodes(undefined)} />;
  if (security.isPending) return <Loading />;
  if (security.error !== null) return <FormError error={security.error.message} />;
  const state = security.data;
  const confirmCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    confirm.mutate(
      { code: String(form.get('code') ?? '').trim() },
      {
        onSuccess: (done) => {
          start.reset();
          setCodes(done.recoveryCodes);
        },
      },
    );
  };
  const turnOff = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    disable.mutate({ password: String(form.get('password') ?? '') });
  };
  return (
    <section aria-labelledby="totp-title" className="card">
      <h2 id="totp-title">Two-step sign-in</h2>
      {state.totpEnabled ? (
        <>
          <p>
            On: sign-in asks for the code of your authenticator app. {state.recoveryCodesLeft} recovery code
            {state.recoveryCodesLeft === 1 ? '' : 's'} left.
          </p>
          <form onSubmit={turnOff} noValidate>
            <Field
              label="Password to turn it off"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              error={fieldError(disable.error, 'password')}
            />
            <FormError error={formError(disable.error, ['password'])} />
            <button type="submit" className="secondary" disabled={disable.isPending}>
              Turn off two-step sign-in
            </button>
          </form>
        </>
      ) : start.data === undefined ? (
        <>
          <p>Off: your password alone signs you in.</p>
          <FormError error={formError(start.error, [])} />
          <button type="button" disabled={start.isPending} onClick={() => start.mutate()}>
            Set up an authenticator app
          </button>
        </>
      ) : (
        <form onSubmit={confirmCode} noValidate>
          <p>
            Add this secret to your authenticator app (or open the link on the phone), then enter its code.
          </p>
          <p className="secret" aria-label="TOTP secret">
            {start.data.secret}
          </p>
          <p className="hint">
            <a href={start.data.otpauthUri}>{start.data.otpauthUri}</a>
          </p>
          <Field
            label="Code from the app"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            error={fieldError(confirm.error, 'code')}
          />
          <FormError error={formError(confirm.error, ['code'])} />
          <button type="submit" disabled={confirm.isPending}>
            Turn on two-step sign-in
          </button>
        </form>
      )}
    </section>
  );
}

/** The signed-in account's security: password, two-step sign-in, sessions (#30). */
export function AccountSecurity() {
  const { data: session } = useSession();
  const signOutEverywhere = useSignOutEverywhere();
  const navigate = useNavigate();
  const operator = session?.account.role === 'operator';
  return (
    <>
      <h1>Account security</h1>
      {operator ? (
        <p>
          The operator signs in with the operator token and the code of its authenticator (ADMIN_TOTP_SECRET,
          or the one enrolled at the first sign-in).
        </p>
      ) : (
        <>
          <ChangePassword />
          <TwoStep />
        </>
      )}
      <section aria-labelledby="sessions-title" className="card">
        <h2 id="sessions-title">Sessions</h2>
        <p>Signed in on a computer you no longer use? End every session of this account, this one too.</p>
        <FormError error={formError(signOutEverywhere.error, [])} />
        <button
          type="button"
          className="secondary"
          disabled={signOutEverywhere.isPending}
          onClick={() =>
            signOutEverywhere.mutate(undefined, {
              onSuccess: () => void navigate('/sign-in', { replace: true }),
            })
          }
        >
          Sign out everywhere
        </button>
      </section>
    </>
  );
}
