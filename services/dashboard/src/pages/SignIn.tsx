import type { FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { fieldError, formError } from '../api/form-errors';
import { useOperatorSignIn, useSignIn } from '../api/session';
import { Field, FormError } from '../components/Field';
import { PublicFrame } from '../components/Layout';

function useAfterSignIn() {
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  return () => void navigate(from ?? '/', { replace: true });
}

export function SignIn() {
  const signIn = useSignIn();
  const done = useAfterSignIn();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate(
      { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') },
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
        <FormError error={formError(signIn.error, ['email', 'password'])} />
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
  const done = useAfterSignIn();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.mutate({ token: String(form.get('token') ?? '') }, { onSuccess: done });
  };
  return (
    <PublicFrame title="Operator sign-in">
      <form onSubmit={submit} noValidate>
        <Field
          label="Operator token"
          name="token"
          type="password"
          autoComplete="off"
          required
          hint="ADMIN_TOKEN; make dev prints it and keeps it in .data/admin-token."
          error={fieldError(signIn.error, 'token')}
        />
        <FormError error={formError(signIn.error, ['token'])} />
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
