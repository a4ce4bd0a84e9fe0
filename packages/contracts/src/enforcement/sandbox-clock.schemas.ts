import { z } from 'zod';

// The sandbox clock a platform moves forward (test helpers).

/**
 * At most a year at once: every step that falls due (reminders, expiries, renewals, each month's
 * fee) runs before the answer, so a decade in one call could outlast the request's budget. Call
 * again to go further.
 */
export const advanceTimeBodySchema = z.object({
  seconds: z.number().int().min(1).max(31_536_000).meta({
    description:
      'How far to move your sandbox clock forward (at most 365 days a call); every timed step that falls due fires, in order',
  }),
});

export const advancedTimeSchema = z.object({
  now: z.iso.datetime().meta({ description: 'Your sandbox clock after the move' }),
  advancedBySeconds: z.number().int(),
  stepsFired: z.number().int().meta({ description: 'Reminders, ending warnings and expiries that fired' }),
});

export const sandboxClockSchema = z.object({
  now: z.iso.datetime().meta({ description: 'Your sandbox clock now: what your deadlines run on' }),
  aheadBySeconds: z
    .number()
    .int()
    .meta({ description: 'How far your sandbox clock runs ahead of real time (0 until you advance it)' }),
});
