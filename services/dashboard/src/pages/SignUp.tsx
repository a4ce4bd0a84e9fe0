import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { fieldError, formError } from '../api/form-errors';
import { useSignUp } from '../api/account-mail';
import { NewPasswordField, Field, FormError } from '../components/Field';
import { PublicFrame } from '../components/Layout';
import { CheckInbox } from './account-mail/CheckInbox';

const FIELDS = ['email', 'password', 'name', 'role'];

export function SignUp() {
  const signUp = useSignUp();
  const [role, setRole] = useState<'creator' | 'platform'>('creator');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signUp.mutate({
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      name: String(form.get('name') ?? ''),
      role,
    });
  };
  if (signUp.data !== undefined) return <CheckInbox email={signUp.data.email} />;
  return (
    <PublicFrame title="Create an account">
      <form onSubmit={submit} noValidate>
        <fieldset className="choice">
          <legend>I am</legend>
          <label>
            <input
              type="radio"
              name="role"
              checked={role === 'creator'}
              onChange={() => setRole('creator')}
            />{' '}
            a creator: I claim and protect an identity (a person, an estate, a company, an agency)
          </label>
          <label>
            <input
              type="radio"
              name="role"
              checked={role === 'platform'}
              onChange={() => setRole('platform')}
            />{' '}
            a platform: I integrate the API (keys, webhooks)
          </label>
        </fieldset>
        <Field
          label={role === 'creator' ? 'Your name' : 'Platform name'}
          name="name"
          autoComplete="name"
          required
          error={fieldError(signUp.error, 'name')}
        />
        <Field
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={fieldError(signUp.error, 'email')}
        />
        <NewPasswordField error={fieldError(signUp.error, 'password')} />
        <FormError error={formError(signUp.error, FIELDS)} />
        <button type="submit" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </PublicFrame>
  );
}
