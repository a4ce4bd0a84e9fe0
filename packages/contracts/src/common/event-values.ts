import { z } from 'zod';
import { centsProblem, type CentsText } from '@svc/money';

/** An ISO 8601 UTC instant. */
export const instant = z.iso.datetime({ offset: true });

/**
 * An amount of money in integer cents, carried as its decimal digits (ADR 0039): exact at any size a
 * column keeps (0..2^63-1), where a JSON number is exact only below 2^53. A producer may hand over
 * the bigint or its text; a consumer also reads the safe-integer number events carried before, for
 * one release. Anything else (a fraction, a number past 2^53, past the largest amount) is refused.
 */
export const cents = z
  .union([z.string(), z.bigint(), z.number()])
  .transform((value, ctx): CentsText => {
    const problem = centsProblem(value);
    if (problem === null) return value.toString();
    ctx.addIssue({ code: 'custom', message: problem, input: value });
    return z.NEVER;
  })
  .meta({ description: 'Integer cents as decimal digits', example: '1999' });

/** A revenue or usage period, `YYYY-MM`. */
export const period = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
  .meta({ example: '2026-10' });

export const licenseTier = z.enum(['personal', 'creator', 'commercial', 'enterprise']);
export const policy = z.enum(['BLOCK_ALL', 'BLOCK_COMMERCIAL', 'MONETIZE', 'LICENSE', 'TEAM', 'OPEN']);
export const enforcementLevel = z.enum(['STRICT', 'MODERATE', 'RELAXED']);
export const severity = z.enum(['low', 'medium', 'high', 'critical']);
