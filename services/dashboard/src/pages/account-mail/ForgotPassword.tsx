import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { useRequestPasswordReset } from '../../api/account-mail';
import { fieldError, formError } from '../../api/form-errors';
import { Field, FormError } from '../../components/Field';
import { PublicFrame } from '../../components/Layout';

/** Asks for a password-reset link; the answer does not say whether the address has an account. */
export function ForgotPassword() {
  const request = useRequestPasswordReset();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    request.mutate({ email: String(new FormData(event.currentTarget).get('email') ?? '') });
  };
  if (request.data !== undefined) {
    return (
      <PublicFrame title="Check your inbox">
        <p role="status">
          If <strong>{request.data.email}</strong> has an account, we sent it a link to choose a new password.
          The link works for 30 minutes, once.
        </p>
        <p>
          <Link to="/sign-in">Back to sign-in</Link>
        </p>
      </PublicFrame>
    );
  }
  return (
    <PublicFrame title="Forgot your password?">
      <form onSubmit={submit} noValidate>
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={fieldError(request.error, 'email')}
        />
        <FormError error={formError(request.error, ['email'])} />
        <button type="submit" disabled={request.isPending}>
          {request.isPending ? 'Sending…' : 'Send me a reset link'}
        </button>
      </form>
      <p>
        <Link to="/sign-in">Back to sign-in</Link>
      </p>
    </PublicFrame>
  );
}
