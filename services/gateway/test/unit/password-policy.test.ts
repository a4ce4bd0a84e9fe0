import { isAppError } from '@svc/errors';
import { assertAcceptablePassword, passwordProblem } from '../../src/domain/password-policy';

function refusal(password: string, context: Parameters<typeof assertAcceptablePassword>[1] = {}) {
  try {
    assertAcceptablePassword(password, context);
  } catch (err) {
    if (isAppError(err)) return err;
    throw err;
  }
  return null;
}

describe('password policy (OWASP ASVS 2.1.7)', () => {
  it('when the password is common with digits (password1234), then it is refused with a hint', () => {
    const err = refusal('password1234');
    expect(err?.code).toBe('VALIDATION_ERROR');
    expect(err?.status).toBe(400);
    expect(err?.details).toEqual({
      fields: [{ field: 'password', message: expect.stringMatching(/guess/) }],
    });
  });

  it('when the password is twelve spaces, then it is refused (no trimming, but no free pass either)', () => {
    expect(refusal('            ')).not.toBeNull();
  });

  it('when the password is a keyboard row (qwertyuiop12), then it is refused', () => {
    expect(refusal('qwertyuiop12')).not.toBeNull();
  });

  it('when the password is shorter than 12 code points, then the message says how long it must be', () => {
    expect(passwordProblem('Zq8#vL2!pW')).toMatch(/at least 12 characters \(has 10\)/);
    // Four astral characters are four code points, not eight UTF-16 units.
    expect(passwordProblem('😀😁😂🤣')).toMatch(/has 4/);
  });

  it('when the password is a few unrelated words, then it is accepted', () => {
    expect(refusal('correct horse battery')).toBeNull();
    expect(refusal('violet tractor umbrella 42')).toBeNull();
  });

  it("when the password is built from the account's own e-mail and name, then it is refused", () => {
    expect(passwordProblem('maximilian.okafor2024', {})).toBeNull();
    expect(
      passwordProblem('maximilian.okafor2024', {
        email: 'maximilian.okafor@example.com',
        name: 'Maximilian Okafor',
      }),
    ).not.toBeNull();
  });

  it('when the form names the field differently, then details.fields uses that name', () => {
    expect(refusal('password1234', { field: 'newPassword' })?.details).toEqual({
      fields: [{ field: 'newPassword', message: expect.any(String) }],
    });
  });
});
