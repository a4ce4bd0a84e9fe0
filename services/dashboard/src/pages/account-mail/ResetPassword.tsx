import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { tokenFromHash, useResetPassword } from '../../api/account-mail';
import { fieldError, formError } from '../../api/form-errors';
import { NewPasswordField, FormError } from '../../components/Field';
import { PublicFrame } from '../../components/Layout';

/** The landing page of a reset link: a new password, then sign in (every session ended). */
export function ResetPassword() {
  const reset = useResetPassword();
  const token = tokenFromHash(window.location.hash);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    reset.mutate({ token, password: String(new FormData(event.currentTarget).get('password') ?? '') });
  };
  if (reset.data !== undefined) {
    return (
      <PublicFrame title="Password changed">
        <p role="status">Your password is changed and every session of your account is signed out.</p>
        <p>
          <Link to="/sign-in">Sign in</Link> with your new password.
        </p>
      </PublicFrame>
    );
  }
  const deadLink = token === '' || fieldError(reset.error, 'token') !== undefined;
  return (
    <PublicFrame title="Choose a new password">
      {deadLink ? (
        <p role="alert">
          This link has expired, was used already or is incomplete.{' '}
          <Link to="/forgot-password">Ask for a new one</Link>.
        </p>
      ) : null}
      <form onSubmit={submit} noValidate>
        <NewPasswordField label="New password" error={fieldError(reset.error, 'password')} />
        <FormError error={formError(reset.error, ['password', 'token'])} />
        <button type="submit" disabled={reset.isPending || token === ''}>
          {reset.isPending ? 'Saving…' : 'Save new password'}
        </button>
      </form>
    </PublicFrame>
  );
}
