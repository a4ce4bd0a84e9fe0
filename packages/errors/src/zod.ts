import type { ZodError } from 'zod';
import { AppError } from './app-error';

export interface FieldProblem {
  field: string;
  message: string;
}

type Issue = ZodError['issues'][number];

/** Zod's own wording ("Too big: expected string to have <=200 characters") starts like this. */
const ZOD_DEFAULT =
  /^(Too big|Too small|Invalid input|Invalid option|Invalid string|Invalid |Unrecognized key)/;

const FORMATS: Record<string, string> = {
  email: 'expected an e-mail address such as ada@example.com',
  url: 'expected a URL such as https://example.com/a.png',
  datetime: 'expected a date and time such as 2026-01-31T12:00:00Z',
  date: 'expected a date such as 2026-01-31',
  uuid: 'expected a UUID',
};

const plural = (count: number | bigint, one: string) => `${count} ${one}${Number(count) === 1 ? '' : 's'}`;

function sizeOf(origin: string, bound: number | bigint): string {
  if (origin === 'string') return plural(bound, 'character');
  if (origin === 'array' || origin === 'set') return plural(bound, 'item');
  return String(bound);
}

/**
 * What a person reads next to the field (issue #32, "Polish"): "at most 200 characters", not zod's
 * "Too big: expected string to have <=200 characters". A schema's own message is kept as written.
 */
export function humanMessage(issue: Issue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'too_big': {
      const size = sizeOf(issue.origin, issue.maximum as number | bigint);
      return issue.inclusive === false ? `less than ${size}` : `at most ${size}`;
    }
    case 'too_small': {
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'required';
      const size = sizeOf(issue.origin, issue.minimum as number | bigint);
      return issue.inclusive === false ? `more than ${size}` : `at least ${size}`;
    }
    case 'invalid_type':
      if (/received undefined$/.test(issue.message)) return 'required';
      return `expected ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
    case 'invalid_value':
      return `expected one of: ${issue.values.map((value) => String(value)).join(', ')}`;
    case 'invalid_format':
      return FORMATS[issue.format] ?? `expected the ${issue.format} format`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length === 1 ? '' : 's'}: ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

/** Names each bad field of a zod failure: `[{field: "referenceImages.0.url", message}]`. */
export function fieldProblems(error: ZodError, prefix?: string): FieldProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter((part) => part !== undefined && part !== '').join('.');
    return { field: field === '' ? '(body)' : field, message: humanMessage(issue) };
  });
}

/** A VALIDATION_ERROR whose details name every bad field. */
export function validationErrorFrom(error: ZodError, where: 'body' | 'query' | 'path' = 'body'): AppError {
  const problems = fieldProblems(error, where === 'body' ? undefined : where);
  const first = problems[0];
  const message =
    first === undefined ? `Invalid ${where}` : `Invalid ${where}: ${first.field}: ${first.message}`;
  return new AppError('VALIDATION_ERROR', message, { details: { fields: problems } });
}
