import { z } from 'zod';
import { logEntryField } from '../common/log-entry';
import {
  licenseTierSchema,
  licenseStatusSchema,
  licenseRequestStatusSchema,
  pricingSchema,
} from './license-request.schemas';

// Licenses: their list and detail forms, the answers to renew, cancel and revoke, and the terms.

export const licenseListItemSchema = z
  .object({
    id: z.string().meta({ example: 'lic_9hQ2mXc4Tz7LpW1nB8vK3d' }),
    boxId: z.string(),
    identityName: z.string(),
    tier: licenseTierSchema,
    status: licenseStatusSchema,
    monthlyFee: z.number(),
    royaltyRate: z.number(),
    validFrom: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    autoRenew: z.boolean(),
    logEntry: logEntryField,
  })
  .meta({ id: 'LicenseListItem' });

export const licenseSchema = licenseListItemSchema
  .extend({
    currency: z.string(),
    terms: z.object({
      maxUsers: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'estimatedUsers of the request; null: none declared' }),
      contentGuidelines: z.string().nullable(),
      nsfw: z.boolean(),
      exclusivity: z.boolean(),
      territory: z.string(),
    }),
    usage: z.object({
      currentPeriod: z.string().meta({ example: '2026-11' }),
      subscribers: z.number(),
      messages: z.number(),
      revenue: z.number(),
      royaltyDue: z.number(),
    }),
    fees: z
      .object({
        basis: z.literal('prorated_calendar_month'),
        currentPeriod: z.string(),
        currentPeriodFee: z
          .number()
          .meta({ description: 'monthlyFee × the share of the month the license is active, half-up' }),
      })
      .meta({ description: 'How the monthly fee is billed (docs/adr/0012-license-fees.md)' }),
  })
  .meta({ id: 'License' });

export const renewedLicenseSchema = z.object({
  id: z.string(),
  status: licenseStatusSchema,
  previousExpiry: z.iso.datetime(),
  newExpiry: z.iso.datetime(),
  tier: licenseTierSchema,
  monthlyFee: z.number().meta({ description: 'The current list price, applied from the renewal' }),
  currency: z.string(),
  pendingUpgrade: z
    .object({
      requestId: z.string(),
      tier: licenseTierSchema,
      status: z.literal('pending'),
      pricing: pricingSchema,
    })
    .optional()
    .meta({
      description:
        "An upgrade to a tier that needs the owner's review: the license is unchanged until approved",
    }),
});

export const cancelledLicenseSchema = z.object({
  id: z.string(),
  status: licenseStatusSchema.meta({ description: 'cancelled (immediate) or active (until cancelsAt)' }),
  effectiveDate: z.enum(['immediate', 'end_of_billing_period']),
  cancelledAt: z.iso.datetime().optional(),
  cancelsAt: z.iso.datetime().optional(),
});

export const revokedLicenseSchema = z.object({
  id: z.string(),
  status: z.literal('revoked'),
  reason: z.string().nullable(),
  revokedAt: z.iso.datetime(),
});

export const licensingTermsSchema = z
  .object({
    auto_approve: z.boolean(),
    pricing: z.object({ per_interaction: z.number(), monthly_license: z.number() }).nullable().meta({
      description: 'null when the identity cannot be licensed (or the owner prices it at approval)',
    }),
    licensable: z.boolean(),
    allowed_uses: z.array(z.string()),
    blocked_uses: z.array(z.string()),
    content_guidelines: z.string(),
  })
  .meta({ id: 'LicensingTerms' });

export const secondFamilyRequestSchema = z.object({
  request_id: z.string(),
  status: licenseRequestStatusSchema,
  license_id: z.string().optional(),
  reason: z.string().optional(),
});
