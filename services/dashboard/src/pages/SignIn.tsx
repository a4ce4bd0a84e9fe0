import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { fieldError, formError } from '../api/form-errors';
import { ApiError } from '../api/http';
import { useOperatorSignIn, useOperatorTotpEnrolment, useSignIn } from '../api/session';
import { Field, FormError } from '../components/Field';
import { PublicFrame } from '../components/Layout';

function useAfterSignIn() {
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  return () => void navigate(from ?? '/', { replace: true });
}

/** True once the API asked for the second factor's code: the form then shows its field. */
function asksForCode(error: unknown): boolean {
  return error instanceof ApiError && error.fields.code !== undefined;
}

export function SignIn() {
  const signIn = useSignIn();
  const done = useAfterSignIn();
  const [needsCode, setNeedsCode] = useState(false);
  useEffect(() => {
    if (asksForCode(signIn.error)) setNeedsCode(true);
  }, [signIn.error]);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const code = String(form.get('code') ?? '').trim();
    signIn.mutate(
      {
        email: String(form.get('email') ?? ''),
        password: String(form.get('password') ?? ''),
        ...(code === '' ? {} : { code }),
      },
      { onSuccess: done },
    );
  };
  return (
    <PublicFrame title="Sign in">
      <form onSubmit={submit} noValidate>
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={fieldError(signIn.error, 'email')}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={fieldError(signIn.error, 'password')}
        />
        {needsCode ? (
          <Field
            label="Authenticator code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            autoFocus
            hint="The 6-digit code of your authenticator app, or one of your recovery codes."
            error={fieldError(signIn.error, 'code')}
          />
        ) : null}
        <FormError error={formError(signIn.error, ['email', 'password', 'code'])} />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        <Link to="/forgot-password">Forgot your password?</Link> New here?{' '}
        <Link to="/sign-up">Create an account</Link>. Operator?{' '}
        <Link to="/operator-sign-in">Sign in with the operator token</Link>.
      </p>
    </PublicFrame>
  );
}

export function OperatorSignIn() {
  const signIn = useOperatorSignIn();
  const enrol = useOperatorTotpEnrolment();
  const done = useAfterSignIn();
  const form = useRef<HTMLFormElement>(null);
  const tokenOf = () => String(new FormData(form.current ?? undefined).get('token') ?? '');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const code = String(data.get('code') ?? '').trim();
    signIn.mutate(
      { token: String(data.get('token') ?? ''), ...(code === '' ? {} : { code }) },
      { onSuccess: done },
    );
  };
  // No second factor yet (409): the token enrols one, confirmed by this form's code.
  const notEnrolled = signIn.error instanceof ApiError && signIn.error.code === 'INVALID_STATE';
  return (
    <PublicFrame title="Operator sign-in">
      {enrol.data === undefined ? null : (
        <div className="card" role="region" aria-labelledby="totp-title">
          <h2 id="totp-title">Your authenticator</h2>
          <p>
            Add this secret to an authenticator app (shown once), then sign in with the token and its code.
          </p>
          <p className="secret" aria-label="TOTP secret">
            {enrol.data.secret}
          </p>
          <p className="hint">
            <a href={enrol.data.otpauthUri}>{enrol.data.otpauthUri}</a>
          </p>
        </div>
      )}
      <form onSubmit={submit} noValidate ref={form}>
        <Field
          label="Operator token"
          name="token"
          type="password"
          autoComplete="off"
          required
          hint="ADMIN_TOKEN; make dev prints it and keeps it in .data/admin-token."
          error={fieldError(signIn.error, 'token') ?? fieldError(enrol.error, 'token')}
        />
        <Field
          label="Authenticator code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          hint="The 6-digit code of the operator's authenticator (make dev prints its secret as Admin TOTP)."
          error={fieldError(signIn.error, 'code')}
        />
        <FormError error={formError(signIn.error, ['token', 'code'])} />
        {notEnrolled && enrol.data === undefined ? (
          <div className="actions">
            <button
              type="button"
              className="secondary"
              disabled={enrol.isPending}
              onClick={() => enrol.mutate({ token: tokenOf() })}
            >
              Set up the authenticator
            </button>
            <FormError error={formError(enrol.error, ['token'])} />
          </div>
        ) : null}
        <button type="submit" disabled={signIn.isPending}>
          Sign in
        </button>
      </form>
      <p>
        <Link to="/sign-in">Back to sign-in</Link>
      </p>
    </PublicFrame>
  );
}
