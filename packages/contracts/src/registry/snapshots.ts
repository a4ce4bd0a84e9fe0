import { z } from 'zod';
import { snapshotOf } from '../common/snapshots';
import { boxCreated } from './events';

/** Registry: a live box as `registry.box.*` describes it; 404 when there is no such (live) box. */
export const INTERNAL_BOX_PATH = '/internal/boxes/:id';
export const boxSnapshotSchema = snapshotOf(boxCreated.data);
export type BoxSnapshot = z.output<typeof boxSnapshotSchema>['data'];

// The gateway's purge of dashboard uploads (docs/spec/contracts.md §17: unreferenced uploads are
// purged): which of a platform's uploads a claim still names as a reference image. Internal only.

/** The gateway asks which of these uploads (ids of `/dashboard/uploads/<id>`) a claim of the platform names. */
export const REFERENCED_UPLOADS_PATH = '/internal/referenced-uploads';

export const referencedUploadsRequestSchema = z.object({
  platformId: z.string().min(1).max(100),
  uploadIds: z
    .array(z.string().regex(/^[A-Za-z0-9_-]{24}$/))
    .min(1)
    .max(500),
});

export const referencedUploadsResponseSchema = z.object({
  data: z.object({ referenced: z.array(z.string()) }),
});

export type ReferencedUploadsRequest = z.input<typeof referencedUploadsRequestSchema>;
export type ReferencedUploadsResponse = z.output<typeof referencedUploadsResponseSchema>;
