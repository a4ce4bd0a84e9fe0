import type { ZodError } from 'zod';
import { AppError } from './app-error';

export interface FieldProblem {
  field: string;
  message: string;
}

/** Names each bad field of a zod failure: `[{field: "referenceImages.0.url", message}]`. */
export function fieldProblems(error: ZodError, prefix?: string): FieldProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter((part) => part !== undefined && part !== '').join('.');
    return { field: field === '' ? '(body)' : field, message: issue.message };
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
