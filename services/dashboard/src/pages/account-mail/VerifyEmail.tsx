import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { tokenFromHash, useVerifyEmail } from '../../api/account-mail';
import { fieldError, formError } from '../../api/form-errors';
import { Field, FormError } from '../../components/Field';
import { PublicFrame } from '../../components/Layout';

/**
 * The landing page of the verification link: with the password chosen at sign-up (so that a
 * sign-up someone else made with this address completes nothing), the account is created and the
 * person signed in.
 */
export function VerifyEmail() {
  const verify = useVerifyEmail();
  const navigate = useNavigate();
  const token = tokenFromHash(window.location.hash);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password') ?? '');
    verify.mutate({ token, password }, { onSuccess: () => void navigate('/', { replace: true }) });
  };
  if (token === '' || fieldError(verify.error, 'token') !== undefined) {
    return (
      <PublicFrame title="This link does not work">
        <p role="alert">
          {token === ''
            ? 'It is incomplete: open the whole link from the message.'
            : 'It has expired or was used already.'}
        </p>
        <p>
          If you confirmed your address already, <Link to="/sign-in">sign in</Link>. Otherwise{' '}
          <Link to="/sign-up">sign up again</Link> for a new link.
        </p>
      </PublicFrame>
    );
  }
  return (
    <PublicFrame title="Confirm your e-mail address">
      <p>Enter the password you chose when signing up to finish.</p>
      <form onSubmit={submit} noValidate>
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={fieldError(verify.error, 'password')}
        />
        <FormError error={formError(verify.error, ['password', 'token'])} />
        <button type="submit" disabled={verify.isPending}>
          {verify.isPending ? 'Confirming…' : 'Confirm and sign in'}
        </button>
      </form>
      <p>Did not sign up? Ignore the message: no account is created without this step.</p>
    </PublicFrame>
  );
}
