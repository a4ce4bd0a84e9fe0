import { z } from 'zod';
import { licenseActivated } from './licensing.events';
import { cents, instant, period } from './shared.schemas';
import { boxCreated } from './registry.events';

// Read-through on a projection miss (ADR 0010): a service that has not yet heard of an entity
// another service just created asks the owner for it. The owner answers with the entity as its
// events describe it and the version of its latest event, so the asker can store the answer in
// its projection and the events still on their way apply (or not) as usual. Internal only: these
// paths are not public operations and answer only a service's internal token.

/** An entity as its owner holds it now, with the entity version of its latest event. */
function snapshotOf<S extends z.ZodType>(data: S) {
  return z.object({ data: z.object({ version: z.number().int().min(0), entity: data }) });
}

/** Registry: a live box as `registry.box.*` describes it; 404 when there is no such (live) box. */
export const INTERNAL_BOX_PATH = '/internal/boxes/:id';
export const boxSnapshotSchema = snapshotOf(boxCreated.data);
export type BoxSnapshot = z.output<typeof boxSnapshotSchema>['data'];

/**
 * Licensing: a license as `licensing.license.*` describes it, with when it stopped being active
 * (null while it is); 404 when there is no such license.
 */
export const INTERNAL_LICENSE_PATH = '/internal/licenses/:id';
export const licenseSnapshotSchema = snapshotOf(
  licenseActivated.data.extend({ endedAt: instant.nullable() }),
);
export type LicenseSnapshot = z.output<typeof licenseSnapshotSchema>['data'];

/** The concrete path of an internal snapshot route for one id. */
export function snapshotPath(
  route: typeof INTERNAL_BOX_PATH | typeof INTERNAL_LICENSE_PATH,
  id: string,
): string {
  return route.replace(':id', encodeURIComponent(id));
}

/**
 * Billing: a license's usage of one period as its current report says (docs/adr/0016): billing
 * owns usage, and licensing reads it here for a license's detail instead of keeping a copy.
 * All zeros when nothing was reported for the period. Money in integer cents.
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
    revenueCents: cents.min(0),
    royaltyDueCents: cents.min(0),
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
