import { Link } from 'react-router';
import { PublicFrame } from '../../components/Layout';

/** After sign-up: the account exists once the mailed link is followed. */
export function CheckInbox({ email }: { email: string }) {
  return (
    <PublicFrame title="Check your inbox">
      <p role="status">
        We sent a message to <strong>{email}</strong>. Open the link in it to confirm your address and finish
        signing up; it works for 24 hours.
      </p>
      <p>
        Nothing arrived after a few minutes? Look in your spam folder, or{' '}
        <Link to="/sign-up" reloadDocument>
          sign up again
        </Link>{' '}
        for a new link.
      </p>
      <p>
        <Link to="/sign-in">Back to sign-in</Link>
      </p>
    </PublicFrame>
  );
}
