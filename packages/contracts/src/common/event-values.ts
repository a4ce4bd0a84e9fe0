import { z } from 'zod';

/** An ISO 8601 UTC instant. */
export const instant = z.iso.datetime({ offset: true });

/** An amount of money in minor units (cents): events never carry binary floating-point money. */
export const cents = z.number().int();

/** A revenue or usage period, `YYYY-MM`. */
export const period = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
  .meta({ example: '2026-10' });

export const licenseTier = z.enum(['personal', 'creator', 'commercial', 'enterprise']);
export const policy = z.enum(['BLOCK_ALL', 'BLOCK_COMMERCIAL', 'MONETIZE', 'LICENSE', 'TEAM', 'OPEN']);
export const enforcementLevel = z.enum(['STRICT', 'MODERATE', 'RELAXED']);
export const severity = z.enum(['low', 'medium', 'high', 'critical']);
