import { z } from 'zod';
import { idParamSchema, idSchema, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';

// Billing's public operations: usage reports (docs/spec/service-interface.md, Endpoints: Licenses) and the
// second family's revenue paths (docs/spec/contracts.md §12). Both count against the usage-report bucket.

/** `YYYY-MM` */
export const usagePeriodSchema = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
  .meta({ example: '2026-10' });

/**
 * A money amount: non-negative, at most 2 decimals (more is VALIDATION_ERROR, never rounded away),
 * at most 1,000,000,000,000 per amount.
 */
export const moneyAmountSchema = z
  .number()
  .min(0)
  .max(1_000_000_000_000)
  .meta({ description: 'Non-negative, at most 2 decimals', example: 1250.5 });

/** Named counters (subscribers, messages, tips, adImpressions; others allowed). */
export const usageMetricsSchema = z
  .record(storable(z.string().min(1).max(64)), z.number().int('counters are whole numbers').min(0).max(1e15))
  .refine((metrics) => Object.keys(metrics).length <= 50, { message: 'at most 50 metrics' })
  .meta({ example: { subscribers: 1200, messages: 45000, tips: 80, adImpressions: 0 } });

/** Amounts by revenue type (subscriptions, messages, tips, ads; others allowed, summed as `other`). */
export const usageRevenueSchema = z
  .record(storable(z.string().min(1).max(64)), moneyAmountSchema)
  .refine((revenue) => Object.keys(revenue).length <= 50, { message: 'at most 50 revenue types' })
  .meta({ example: { subscriptions: 4200, messages: 1300.5, tips: 250, ads: 0 } });

export const reportUsageBodySchema = z.object({
  period: usagePeriodSchema,
  metrics: usageMetricsSchema,
  revenue: usageRevenueSchema,
});

export const usageReportResultSchema = z
  .object({
    id: z.string().meta({ example: 'usage_4fT9kQ2mX8rB1nLw7Zc3Vd' }),
    licenseId: z.string(),
    period: z.string(),
    version: z
      .number()
      .int()
      .meta({ description: '1 for the first report of the period; a correction adds 1' }),
    totalRevenue: z.number(),
    royaltyRate: z.number(),
    royaltyDue: z.number().meta({ description: 'totalRevenue × royaltyRate, rounded half-up to cents' }),
    paymentStatus: z.literal('pending'),
    dueDate: z.iso.datetime().meta({ description: 'The 15th of the month after the period, UTC' }),
  })
  .meta({ id: 'UsageReportResult' });

export const revenueReportBodySchema = z.object({
  license_id: idSchema,
  period: usagePeriodSchema,
  metrics: z.object({
    interactions: z.number().int().min(0).max(1e15),
    unique_users: z.number().int().min(0).max(1e15),
    revenue_generated: moneyAmountSchema,
  }),
});

export const revenueReportResultSchema = z.object({
  license_id: z.string(),
  period: z.string(),
  version: z.number().int(),
  total_revenue: z.number(),
  royalty_due: z.number(),
  payment_status: z.literal('pending'),
  due_date: z.iso.datetime(),
});

export const pendingPayoutSchema = z.object({
  kind: z.enum(['fee', 'royalty']),
  license_id: z.string(),
  period: z.string(),
  amount: z.number(),
  due_date: z.iso.datetime(),
  recipient: z.string().meta({ description: 'The box owner platform that is paid' }),
});

export const revenueBalanceSchema = z.object({
  currency: z.string(),
  balance: z.number().meta({ description: 'License fees and royalties the caller owes and has not paid' }),
  receivable: z
    .number()
    .meta({ description: 'License fees and royalties owed to the caller as a box owner' }),
  fee_basis: z.literal('prorated_calendar_month').meta({
    description: 'Fees per calendar month, prorated to the days active (docs/adr/0012-license-fees.md)',
  }),
  breakdown: z.object({
    fees: z.object({ balance: z.number(), receivable: z.number() }),
    royalties: z.object({ balance: z.number(), receivable: z.number() }),
  }),
  pending_payouts: z.array(pendingPayoutSchema),
});

const usage = { service: 'billing' as const, tags: ['Usage and revenue'], bucket: 'usage-report' as const };

export const billingOperations = {
  reportUsage: defineOperation({
    ...usage,
    id: 'reportUsage',
    method: 'post',
    path: '/v1/svc/licenses/:id/usage',
    summary: 'Report usage and revenue of a period; a second report of the period is a correction',
    request: { params: idParamSchema, body: reportUsageBodySchema },
    responses: {
      201: { description: 'First report of the period', schema: z.object({ data: usageReportResultSchema }) },
      200: {
        description: 'A correction (version 2, 3, ...)',
        schema: z.object({ data: usageReportResultSchema }),
      },
      404: { description: 'No such license of the caller' },
      409: { description: 'The license was not active in that period' },
    },
  }),
  secondFamilyReportRevenue: defineOperation({
    ...usage,
    tags: ['Second family'],
    id: 'secondFamilyReportRevenue',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
    method: 'post',
    path: '/revenue/report',
    summary: 'Report revenue of a period, snake_case (the same usage report)',
    request: { body: revenueReportBodySchema },
    responses: {
      201: { description: 'First report of the period', schema: revenueReportResultSchema },
      200: { description: 'A correction', schema: revenueReportResultSchema },
    },
  }),
  secondFamilyRevenueBalance: defineOperation({
    service: 'billing',
    tags: ['Second family'],
    id: 'secondFamilyRevenueBalance',
    method: 'get',
    path: '/revenue/balance',
    summary: 'What the caller owes (balance, pending payouts) and is owed (receivable), snake_case',
    responses: { 200: { description: 'The balance', schema: revenueBalanceSchema } },
  }),
};
