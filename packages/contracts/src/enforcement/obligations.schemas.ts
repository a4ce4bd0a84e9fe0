import { z } from 'zod';
import { gracePeriodStatusSchema } from './vocabulary.schemas';

// The second family's snake_case summary of what a platform still has to do.

export const obligationsSchema = z
  .object({
    takedowns: z.array(
      z.object({
        violation_id: z.string(),
        avatar_id: z.string(),
        avatar_name: z.string(),
        creator_id: z.string(),
        box_id: z.string(),
        identity_id: z.string(),
        identity_name: z.string(),
        enforced_at: z.string(),
      }),
    ),
    grace_periods: z.array(
      z.object({
        grace_period_id: z.string(),
        violation_id: z.string(),
        box_id: z.string(),
        identity_id: z.string(),
        identity_name: z.string(),
        status: gracePeriodStatusSchema,
        started_at: z.string(),
        expires_at: z.string(),
        days_remaining: z.number().int(),
        avatar_ids: z.array(z.string()),
      }),
    ),
    truncated: z.boolean().meta({ description: 'True when a list was cut at 1000 items (newest first)' }),
  })
  .meta({
    id: 'EnforcementObligations',
    description:
      'takedowns: enforced violations whose avatar you still report (deactivate it, then DELETE it). ' +
      'grace_periods: active or paused grace periods.',
  });
