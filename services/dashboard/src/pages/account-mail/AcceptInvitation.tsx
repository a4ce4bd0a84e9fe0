import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { tokenFromHash } from '../../api/account-mail';
import { fieldError, formError } from '../../api/form-errors';
import { useAcceptInvitation } from '../../api/members';
import { NewPasswordField, Field, FormError } from '../../components/Field';
import { PublicFrame } from '../../components/Layout';

/**
 * The landing page of an invitation link (issue #32, "Platform members"): with a name and a
 * password the account joins the inviting platform or creator with the role it was invited with,
 * and the person is signed in.
 */
export function AcceptInvitation() {
  const accept = useAcceptInvitation();
  const navigate = useNavigate();
  const token = tokenFromHash(window.location.hash);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    accept.mutate(
      { token, name: String(form.get('name') ?? ''), password: String(form.get('password') ?? '') },
      { onSuccess: () => void navigate('/', { replace: true }) },
    );
  };
  if (token === '' || fieldError(accept.error, 'token') !== undefined) {
    return (
      <PublicFrame title="This invitation does not work">
        <p role="alert">
          {token === ''
            ? 'The link is incomplete: open the whole link from the message.'
            : 'It has expired, was withdrawn or was used already.'}
        </p>
        <p>
          Ask the person who invited you for a new invitation. If you joined already,{' '}
          <Link to="/sign-in">sign in</Link>.
        </p>
      </PublicFrame>
    );
  }
  return (
    <PublicFrame title="Accept the invitation">
      <p>Choose the name the other members see and a password to join.</p>
      <form onSubmit={submit} noValidate>
        <Field
          label="Your name"
          name="name"
          autoComplete="name"
          required
          error={fieldError(accept.error, 'name')}
        />
        <NewPasswordField error={fieldError(accept.error, 'password')} />
        <FormError error={formError(accept.error, ['name', 'password', 'token'])} />
        <button type="submit" disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : 'Join'}
        </button>
      </form>
      <p>Not expecting an invitation? Ignore the message: no account is created without this step.</p>
    </PublicFrame>
  );
}
