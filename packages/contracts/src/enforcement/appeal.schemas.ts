import { z } from 'zod';
import { logEntryField } from '../common/log-entry';
import { pageQuerySchema, storable } from '../common/schemas';
import {
  violationStatusSchema,
  gracePeriodStatusSchema,
  appealReasonSchema,
  appealStatusSchema,
} from './vocabulary.schemas';

// Appeals and contests: the reviewer's decision and queue, and the appeal's forms.

export const decideAppealBodySchema = z.object({
  outcome: z.enum(['upheld', 'denied']).meta({
    description:
      'upheld: the violation is dismissed and its grace period resolved. denied: the violation is pending ' +
      'again and its grace period active, with the paused time added back.',
  }),
  notes: storable(z.string().max(2000)).optional(),
});
export const appealSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['appeal', 'contest']).meta({
      description:
        "appeal: the hosting platform's, of a violation. contest: the box owner's, of a resolution",
    }),
    violationId: z.string(),
    gracePeriodId: z.string(),
    reason: appealReasonSchema,
    explanation: z.string(),
    evidence: z.array(z.string()),
    status: appealStatusSchema,
    submittedAt: z.iso.datetime(),
    estimatedReviewTime: z.string(),
    decidedAt: z.iso.datetime().nullable(),
    notes: z.string().nullable(),
    logEntry: logEntryField,
  })
  .meta({ id: 'Appeal' });

/** The operator's queue of appeals (GET /admin/appeals). */
export const reviewAppealsQuerySchema = pageQuerySchema.extend({
  status: appealStatusSchema
    .default('pending')
    .meta({ description: 'Default `pending`: the appeals awaiting a decision' }),
});

export const reviewAppealSchema = appealSchema
  .extend({
    platformId: z
      .string()
      .meta({ description: 'Who filed it: the hosting platform, or the box owner (contest)' }),
    violation: z.object({
      id: z.string(),
      status: violationStatusSchema,
      boxId: z.string(),
      identityName: z.string(),
      avatar: z.object({ id: z.string().nullable(), name: z.string().nullable() }),
    }),
  })
  .meta({ id: 'ReviewAppeal' });

export const decidedAppealSchema = appealSchema.extend({
  violation: z.object({ id: z.string(), status: violationStatusSchema }),
  gracePeriod: z.object({ id: z.string(), status: gracePeriodStatusSchema, expiresAt: z.iso.datetime() }),
});
