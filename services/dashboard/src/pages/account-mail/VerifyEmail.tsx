import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { tokenFromHash, useVerifyEmail } from '../../api/account-mail';
import { PublicFrame } from '../../components/Layout';

/** The landing page of the verification link: the account is created and the person signed in. */
export function VerifyEmail() {
  const verify = useVerifyEmail();
  const navigate = useNavigate();
  const sent = useRef(false);
  const token = tokenFromHash(window.location.hash);
  useEffect(() => {
    // Once: the link works once, and React may run an effect twice in development.
    if (sent.current || token === '') return;
    sent.current = true;
    verify.mutate({ token }, { onSuccess: () => void navigate('/', { replace: true }) });
  }, [token, verify, navigate]);
  if (token === '' || verify.isError) {
    return (
      <PublicFrame title="This link does not work">
        <p role="alert">
          {verify.error?.fields.token !== undefined
            ? 'It has expired or was used already.'
            : (verify.error?.message ?? 'It is incomplete: open the whole link from the message.')}
        </p>
        <p>
          If you confirmed your address already, <Link to="/sign-in">sign in</Link>. Otherwise{' '}
          <Link to="/sign-up">sign up again</Link> for a new link.
        </p>
      </PublicFrame>
    );
  }
  return (
    <PublicFrame title="Confirming your address">
      <p role="status">One moment…</p>
    </PublicFrame>
  );
}
