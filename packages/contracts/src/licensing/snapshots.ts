import type { z } from 'zod';
import { instant } from '../common/event-values';
import { snapshotOf } from '../common/snapshots';
import { licenseActivated } from './events';

/**
 * Licensing: a license as `licensing.license.*` describes it, with when it stopped being active
 * (null while it is); 404 when there is no such license.
 */
export const INTERNAL_LICENSE_PATH = '/internal/licenses/:id';
export const licenseSnapshotSchema = snapshotOf(
  licenseActivated.data.extend({ endedAt: instant.nullable() }),
);
export type LicenseSnapshot = z.output<typeof licenseSnapshotSchema>['data'];
