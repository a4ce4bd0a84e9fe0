import type { z } from 'zod';
import { snapshotOf } from '../common/snapshots';
import { boxCreated } from './events';

/** Registry: a live box as `registry.box.*` describes it; 404 when there is no such (live) box. */
export const INTERNAL_BOX_PATH = '/internal/boxes/:id';
export const boxSnapshotSchema = snapshotOf(boxCreated.data);
export type BoxSnapshot = z.output<typeof boxSnapshotSchema>['data'];
