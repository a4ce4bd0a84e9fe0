import { ERROR_CODES, type ErrorCode } from '@svc/errors';
import { z } from 'zod';

/** The closed set of error codes (`@svc/errors`), in the order of docs/spec/contracts.md §2. */
export const errorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).meta({
  id: 'ErrorCode',
  description:
    'The closed set of error codes (docs/spec/contracts.md §2); each operation lists the ones it can answer with.',
});

/** The public error body (docs/spec/contracts.md §2). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: errorCodeSchema,
      message: z.string().meta({ description: 'For people: what went wrong, in English' }),
      details: z
        .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
        .optional()
        .meta({
          description:
            'What a program can act on: the bad fields (`fields`) of a VALIDATION_ERROR, `limit`/`remaining`/`resetAt`/`retryAfter` of RATE_LIMITED, the request id of INTERNAL',
        }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer: `{error: {code, message, details?}}`' });

/**
 * Text PostgreSQL can store: no NUL (a text column refuses it) and no unpaired UTF-16 surrogate (a
 * JSONB column refuses its escape; a text column would turn it into U+FFFD). The pattern means the
 * same with or without the `u` flag, so a client's validator reads it the way the services do.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what the pattern is about
export const STORABLE_TEXT = /^(?:[^\u0000\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;
export const STORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

/** `schema` that also refuses text PostgreSQL cannot store (VALIDATION_ERROR naming the field). */
export function storable(schema: z.ZodString): z.ZodString {
  return schema.regex(STORABLE_TEXT, STORABLE_TEXT_MESSAGE);
}

/** The largest value of a PostgreSQL `integer` column: counts that land in one are capped here. */
export const MAX_INT32 = 2_147_483_647;

/**
 * An identifier in a path, query or body: 1 to 100 visible ASCII characters. Every id the system
 * issues (`claim_…`, `box_…`) fits; anything else cannot name a resource.
 */
export const idSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x21-\x7E]+$/, 'expected an id: 1 to 100 visible ASCII characters');

/** `limit` 1..100 (default 20) and `offset` 0..2^31-1 (docs/spec/contracts.md §7). */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(MAX_INT32).default(0),
});

export const listMetaSchema = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** `{data: T}` */
export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** `{data: T[], meta}` */
export function listOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: z.array(schema), meta: listMetaSchema });
}

export const idParamSchema = z.object({ id: idSchema });
