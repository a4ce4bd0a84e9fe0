import { z } from 'zod';
import { cents, period } from '../common/event-values';

/**
 * Billing: a license's usage of one period as its current report says (docs/adr/0016): billing
 * owns usage, and licensing reads it here for a license's detail instead of keeping a copy.
 * All zeros when nothing was reported for the period. Money in integer cents as text (ADR 0039).
 */
export const INTERNAL_USAGE_PATH = '/internal/licenses/:id/usage/:period';
export const usageFiguresSchema = z.object({
  data: z.object({
    licenseId: z.string(),
    period,
    /** The report's version (0: nothing reported). */
    version: z.number().int().min(0),
    subscribers: z.number().int().min(0),
    messages: z.number().min(0),
    revenueCents: cents,
    royaltyDueCents: cents,
  }),
});
export type UsageFigures = z.output<typeof usageFiguresSchema>['data'];

/** The concrete path of a license's usage of one period. */
export function usagePath(licenseId: string, usagePeriod: string): string {
  return INTERNAL_USAGE_PATH.replace(':id', encodeURIComponent(licenseId)).replace(
    ':period',
    encodeURIComponent(usagePeriod),
  );
}
