import {
  alreadyRegisteredMail,
  hashMailToken,
  newMailToken,
  nextAttemptDelayMs,
  passwordResetMail,
  verificationMail,
} from '../../src/domain/account-mail';

const links = { baseUrl: 'https://svc.example.com' };

describe('account mail', () => {
  it('when a link is made, then its token (256 bits) rides in the fragment and only its hash is kept', () => {
    const token = newMailToken();
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(newMailToken()).not.toBe(token);
    expect(hashMailToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(verificationMail(links, 'a@example.com', 'Ada', token).text).toContain(
      `https://svc.example.com/dashboard/verify-email#token=${token}`,
    );
    expect(passwordResetMail(links, 'a@example.com', 'Ada', token).text).toContain(
      `https://svc.example.com/dashboard/reset-password#token=${token}`,
    );
  });

  it('when an address already has an account, then its mail links to sign-in and to the reset request, and holds no token', () => {
    const mail = alreadyRegisteredMail(links, 'a@example.com', 'Ada');
    expect(mail.subject).toBe('You already have an account');
    expect(mail.text).toContain('https://svc.example.com/dashboard/sign-in');
    expect(mail.text).toContain('https://svc.example.com/dashboard/forgot-password');
    expect(mail.text).not.toContain('token');
  });

  it('when sends keep failing, then the delay doubles from 5 s up to an hour', () => {
    expect([1, 2, 3, 4].map(nextAttemptDelayMs)).toEqual([5000, 10_000, 20_000, 40_000]);
    expect(nextAttemptDelayMs(30)).toBe(3_600_000);
  });
});
