import { AppError } from '@svc/errors';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';

/**
 * The password policy (OWASP ASVS 2.1.1, 2.1.7): at least 12 characters, counted as code points
 * and never trimmed, and not common, breached or guessable. Guessability is zxcvbn's estimate
 * against its 'passwords-common' list (49,233 common and breached passwords) and keyboard
 * patterns; the account's own e-mail and name count as known to an attacker.
 */
export const MIN_PASSWORD_LENGTH = 12;
/** zxcvbn's score 0-4; 3 is "safely unguessable: moderate protection from offline slow-hash attacks". */
export const MIN_PASSWORD_SCORE = 3;
/** argon2 hashes any length, but a megabyte password is a cheap way to burn our CPU. */
export const MAX_PASSWORD_LENGTH = 256;

// Building the matcher loads ~50k words: once, and only when a password is first checked.
let factory: ZxcvbnFactory | undefined;
function zxcvbn(): ZxcvbnFactory {
  factory ??= new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs });
  return factory;
}

export interface PasswordContext {
  email?: string;
  name?: string;
  /** The field named in details.fields; 'password' unless the form calls it otherwise (e.g. 'newPassword'). */
  field?: string;
}

/** Why a password is refused, or null when it is acceptable. Pure: no I/O. */
export function passwordProblem(password: string, context: PasswordContext = {}): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    return `must have at least ${MIN_PASSWORD_LENGTH} characters (has ${length})`;
  if (length > MAX_PASSWORD_LENGTH) return `must have at most ${MAX_PASSWORD_LENGTH} characters`;
  const userInputs = [context.email, context.email?.split('@')[0], context.name].filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  const result = zxcvbn().check(password, userInputs);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const hints = [result.feedback.warning, ...result.feedback.suggestions].filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  const why = 'is too easy to guess (common, breached or a simple pattern)';
  return hints.length > 0 ? `${why}: ${hints.join(' ')}` : `${why}; try a few unrelated words`;
}

/** Throws 400 VALIDATION_ERROR with details.fields [{field, message}] when the password is refused. */
export function assertAcceptablePassword(
  password: string,
  context: { email?: string; name?: string; field?: string } = {},
): void {
  const problem = passwordProblem(password, context);
  if (problem === null) return;
  const field = context.field ?? 'password';
  throw new AppError('VALIDATION_ERROR', `The password ${problem}`, {
    details: { fields: [{ field, message: problem }] },
  });
}
