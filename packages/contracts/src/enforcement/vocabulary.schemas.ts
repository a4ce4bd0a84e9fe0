import { z } from 'zod';
import { storable } from '../common/schemas';

// Enforcement's enumerations and the small pieces its resources share (statuses, avatar ids, notifications).

export const violationStatusSchema = z
  .enum(['pending', 'resolved', 'enforced', 'appealed', 'dismissed'])
  .meta({
    description:
      'pending: in its grace period. resolved: the platform complied (licensed, removed, modified, parody). ' +
      'enforced: the grace period ran out; the avatar is to be deactivated. appealed: under human review, ' +
      'the grace period is paused. dismissed: a false positive (appeal upheld) or the box was removed.',
  });

export const gracePeriodStatusSchema = z.enum(['active', 'paused', 'resolved', 'expired', 'cancelled']).meta({
  description:
    'active: counting down. paused: an appeal is under review (the countdown resumes with the paused time ' +
    'added back if it is denied). resolved: the avatars complied or the appeal was upheld. expired: time ran ' +
    'out, enforcement triggered. cancelled: the box was removed.',
});

export const severitySchema = z.enum(['low', 'medium', 'high', 'critical']).meta({
  description:
    'From the avatar’s user count: critical ≥ 10,000, high ≥ 1,000, medium ≥ 100, else low; one step lower ' +
    'when the detection confidence is below 0.85 (never below low). Every severity has the same grace period.',
});

export const resolutionSchema = z.enum(['licensed', 'removed', 'modified', 'parody']).meta({
  description:
    'Checked against the facts, never taken at its word (409 INVALID_STATE with what would resolve it). ' +
    'licensed: licenseId names your active license on the box whose tier covers the avatar (a commercial avatar ' +
    'needs commercial or enterprise). removed: the avatar is taken down by this call (re-reporting it runs ' +
    'detection again). modified: the avatar as it is now is evaluated again and no longer breaks the policy. ' +
    'parody: the box admits parody (not STRICT, not BLOCK_ALL) and the avatar is likely parody (≥ 0.7).',
});

export const appealReasonSchema = z
  .enum(['parody', 'false_positive', 'common_name', 'authorized', 'other'])
  .meta({
    description:
      'parody: parody or satire. false_positive: the detection is incorrect. common_name: the name is common ' +
      'and not the protected identity. authorized: verbal or informal authorization. other.',
  });

export const appealStatusSchema = z.enum(['pending', 'upheld', 'denied', 'withdrawn']).meta({
  description:
    'pending: awaiting review (24-48 hours). upheld: the violation is dismissed. denied: the violation is ' +
    'pending again and its grace period resumes. withdrawn: the violation was resolved meanwhile.',
});

export const avatarEvaluationStatusSchema = z.enum(['pending', 'completed']).meta({
  description:
    'pending: waiting for detection (it is retried until it answers; nothing is lost). completed: detection ' +
    'answered and the policy was applied.',
});

export const avatarMatchOutcomeSchema = z
  .enum(['violation', 'licensed', 'authorized', 'allowed', 'monitored', 'parody'])
  .meta({
    description:
      'violation: the avatar breaks the box policy (a violation and its grace period exist). licensed: the ' +
      'platform holds an active license on the box. authorized: TEAM, the creator or platform is authorized. ' +
      'allowed: the policy allows this use (e.g. non-commercial under BLOCK_COMMERCIAL). monitored: OPEN, ' +
      'recorded for monitoring only. parody: likely parody of a non-STRICT box (allowed with a disclaimer).',
  });

/** A platform's own avatar id: 1 to 200 characters of letters, digits and `._:-`. */
export const avatarIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'expected 1 to 200 letters, digits or ._:-')
  .meta({ description: "The platform's own avatar id", example: 'avatar-42' });

export const httpUrlSchema = storable(z.string().max(2048))
  .refine((value) => {
    try {
      const protocol = new URL(value).protocol;
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'expected an http(s) URL')
  .meta({ example: 'https://avatarly.io/avatars/8f2c41' });

const notificationSentSchema = z.object({
  sent: z.boolean(),
  at: z.iso.datetime().optional().meta({ description: 'When sent' }),
});

export const violationNotificationsSchema = z.object({
  day0: notificationSentSchema,
  day7: notificationSentSchema,
  day21: notificationSentSchema,
  day28: notificationSentSchema,
});

export const gracePeriodNotificationSchema = notificationSentSchema.extend({
  scheduledAt: z.iso.datetime().optional().meta({ description: 'When it is due (pauses push it back)' }),
  recipients: z.array(z.string()).optional().meta({ description: 'Personal data: detail responses only' }),
});

export const licensePricingSchema = z
  .object({
    personal: z.number().nullable(),
    creator: z.number().nullable(),
    commercial: z.number().nullable(),
  })
  .meta({ description: "Monthly prices of the box's license tiers; null when a tier is not offered" });

export const resolutionTypeSchema = z.enum(['license', 'remove', 'modify', 'appeal']);
