import type { Request } from 'express';
import type { z } from 'zod';
import { AppError, validationErrorFrom } from '@svc/errors';

/** Parses the JSON body with `schema`; a missing or non-object body, or any bad field, is a 400 VALIDATION_ERROR naming each field. */
export function parseBody<T extends z.ZodType>(schema: T, req: Request): z.output<T> {
  const body: unknown = req.body;
  // express.json leaves the body undefined when the request had no JSON content type; say so
  // plainly instead of letting the schema report "expected object, received undefined".
  if (body === undefined || body === null || typeof body !== 'object') {
    throw new AppError(
      'VALIDATION_ERROR',
      'Request body must be a JSON object (Content-Type: application/json)',
      {
        details: { fields: [{ field: '(body)', message: 'Expected a JSON object' }] },
      },
    );
  }
  const result = schema.safeParse(body);
  if (!result.success) throw validationErrorFrom(result.error, 'body');
  return result.data;
}

/** Parses the query string with `schema` (values arrive as strings: coerce in the schema); 400 VALIDATION_ERROR naming each field. */
export function parseQuery<T extends z.ZodType>(schema: T, req: Request): z.output<T> {
  const result = schema.safeParse(req.query);
  if (!result.success) throw validationErrorFrom(result.error, 'query');
  return result.data;
}

/** Parses the path parameters with `schema`; 400 VALIDATION_ERROR naming each field. */
export function parseParams<T extends z.ZodType>(schema: T, req: Request): z.output<T> {
  const result = schema.safeParse(req.params);
  if (!result.success) throw validationErrorFrom(result.error, 'path');
  return result.data;
}
