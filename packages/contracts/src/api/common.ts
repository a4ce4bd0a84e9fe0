import { z } from 'zod';

/** The public error body (contracts.md §2). */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'One of the closed set of error codes' }),
      message: z.string(),
      details: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
    }),
  })
  .meta({ id: 'Error' });

/** `limit` 1..100 (default 20) and `offset` ≥ 0 (contracts.md §7). */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
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

export const idParamSchema = z.object({ id: z.string().min(1).max(100) });
