import { z } from 'zod';
import { licenseActivated } from './licensing.events';
import { instant } from './shared.schemas';
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
