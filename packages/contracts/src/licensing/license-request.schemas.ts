import { z } from 'zod';
import { logEntrySchema } from '../common/log-entry';
import { MAX_INT32, idSchema, pageQuerySchema, storable } from '../common/schemas';
import { hasWholeCents } from '@svc/money';

// License tiers and states, the bodies a platform and a box owner send, and the forms of a license request.

export const licenseTierSchema = z.enum(['personal', 'creator', 'commercial', 'enterprise']);
export const licenseStatusSchema = z.enum(['pending', 'active', 'expired', 'revoked', 'cancelled']);
export const licenseRequestStatusSchema = z.enum(['pending', 'approved', 'denied']);

const termMonthsSchema = z.number().int().min(1).max(36);

export const requestLicenseBodySchema = z.object({
  boxId: idSchema,
  tier: licenseTierSchema,
  useCase: storable(z.string().trim().min(1).max(2000)),
  estimatedUsers: z.number().int().min(0).max(MAX_INT32).optional(),
  acceptGuidelines: z.literal(true, { error: 'acceptGuidelines must be true' }),
  message: storable(z.string().max(2000)).optional().meta({ description: 'To the identity owner' }),
  term: termMonthsSchema.optional().meta({ description: 'Months the license runs once approved; default 1' }),
  autoRenew: z.boolean().optional().meta({ description: 'Renew for another term at expiry; default true' }),
});

export const listLicensesQuerySchema = pageQuerySchema.extend({
  status: licenseStatusSchema.optional(),
  boxId: idSchema.optional(),
  tier: licenseTierSchema.optional(),
});

export const listBoxLicenseRequestsQuerySchema = pageQuerySchema.extend({
  status: licenseRequestStatusSchema.optional(),
});

export const renewLicenseBodySchema = z.object({
  term: termMonthsSchema.meta({ description: 'Months added to the current expiry' }),
  tier: licenseTierSchema
    .optional()
    .meta({ description: 'A new tier (e.g. an upgrade) re-prices the license' }),
});

export const cancelLicenseBodySchema = z.object({
  reason: storable(z.string().trim().min(1).max(1000)).optional(),
  effectiveDate: z.enum(['immediate', 'end_of_billing_period']).optional().meta({
    description: 'Default immediate; end_of_billing_period keeps it active until the end of the month',
  }),
});

export const revokeLicenseBodySchema = z.object({
  reason: storable(z.string().trim().min(1).max(1000)).optional(),
});
export const denyLicenseRequestBodySchema = z.object({
  reason: storable(z.string().trim().min(1).max(1000)),
});

export const identityIdParamSchema = z.object({ identity_id: idSchema });

export const secondFamilyRequestBodySchema = z.object({
  identity_id: idSchema.meta({ description: 'A box id or the claim id of a boxed identity' }),
  use_type: z.enum(['avatar', 'voice', 'video']),
  platform_description: storable(z.string().trim().min(1).max(2000)),
  expected_usage: storable(z.string().trim().min(1).max(2000)),
});

/** A money amount with at most 2 decimals (cents). */
const feeAmountSchema = z
  .number()
  .min(0)
  .max(1_000_000_000)
  .refine(hasWholeCents, { message: 'at most 2 decimals (cents)' });

/** The box owner's approval: `monthlyFee` prices a tier the owner prices at approval (enterprise). */
export const approveLicenseRequestBodySchema = z.object({
  monthlyFee: feeAmountSchema
    .optional()
    .meta({ description: 'Required for a tier without a list price (enterprise); refused otherwise' }),
});

export const pricingSchema = z.object({
  monthlyFee: z
    .number()
    .nullable()
    .meta({ description: "From the owner's price list; null until the owner prices it at approval" }),
  royaltyRate: z.number(),
  currency: z.string(),
});

export const createdLicenseRequestSchema = z
  .object({
    id: z.string().meta({ example: 'req_4fT9qLx2Wm8nB3vC7kJd1s' }),
    boxId: z.string(),
    status: licenseRequestStatusSchema,
    tier: licenseTierSchema,
    submittedAt: z.iso.datetime(),
    estimatedReviewTime: z.string().meta({ example: '48-72 hours' }),
    pricing: pricingSchema,
  })
  .meta({ id: 'CreatedLicenseRequest' });

const requestLicenseSummarySchema = z.object({
  id: z.string(),
  tier: licenseTierSchema,
  monthlyFee: z.number(),
  validFrom: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
});

export const licenseRequestSchema = z
  .object({
    id: z.string(),
    status: licenseRequestStatusSchema,
    submittedAt: z.iso.datetime().optional().meta({ description: 'pending form' }),
    license: requestLicenseSummarySchema.optional().meta({ description: 'approved form' }),
    reason: z.string().optional().meta({ description: 'denied form' }),
    deniedAt: z.iso.datetime().optional().meta({ description: 'denied form' }),
  })
  .meta({ id: 'LicenseRequest' });

export const boxLicenseRequestSchema = z
  .object({
    id: z.string(),
    boxId: z.string(),
    status: licenseRequestStatusSchema,
    tier: licenseTierSchema,
    useCase: z.string(),
    estimatedUsers: z.number().int().nullable(),
    message: z.string().nullable(),
    licenseePlatformId: z.string(),
    licenseePlatformName: z.string(),
    submittedAt: z.iso.datetime(),
    pricing: pricingSchema,
    licenseId: z.string().nullable(),
    reason: z.string().nullable(),
    decidedAt: z.iso.datetime().nullable(),
    licenseLogEntry: logEntrySchema.optional().meta({
      description:
        "Once approved and logged: the license's newest decision in the transparency log (docs/spec/contracts.md §16), the license's own `logEntry`",
    }),
  })
  .meta({ id: 'BoxLicenseRequest' });
