import type { Clock } from '@svc/clock';
import type { Logger } from '@svc/logger';
import type { TransactionRunner } from './ports';
import type { UploadFiles, UploadStore } from './account-ports';

/** Uploads looked at in one pass, and asked about in one call to the registry. */
const PURGE_BATCH = 200;

export interface PurgeUploadsDeps {
  db: TransactionRunner;
  uploads: UploadStore;
  uploadFiles?: UploadFiles | undefined;
  clock: Clock;
  logger: Logger;
  /** The registry's answer: which of the platform's uploads a claim names (REFERENCED_UPLOADS_PATH). */
  referencedUploads: (platformId: string, uploadIds: string[]) => Promise<string[]>;
}

/**
 * Deletes uploads that are older than `olderThanMs` and named by no claim of their platform
 * (docs/spec/contracts.md §17): the quota counts only what is used. When the registry cannot say,
 * nothing is deleted (an upload is never lost for a failed call). Answers how many went.
 */
export async function purgeUnreferencedUploads(deps: PurgeUploadsDeps, olderThanMs: number): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - olderThanMs);
  const candidates = await deps.uploads.createdBefore(deps.db, cutoff, PURGE_BATCH);
  const byPlatform = new Map<string, { id: string; inFiles: boolean }[]>();
  for (const upload of candidates) {
    const list = byPlatform.get(upload.platformId) ?? [];
    list.push(upload);
    byPlatform.set(upload.platformId, list);
  }
  let purged = 0;
  for (const [platformId, uploads] of byPlatform) {
    let referenced: Set<string>;
    try {
      referenced = new Set(
        await deps.referencedUploads(
          platformId,
          uploads.map((u) => u.id),
        ),
      );
    } catch (err) {
      deps.logger.warn(
        { err, platformId },
        'upload purge: the registry did not say which uploads are used; kept',
      );
      continue;
    }
    await deps.uploads.markInUse(deps.db, [...referenced], deps.clock.now());
    const unused = uploads.filter((u) => !referenced.has(u.id));
    if (unused.length === 0) continue;
    // The files first: a purge that stops between the two (a killed process) leaves rows, which
    // the next pass finds and finishes; rows deleted first would leave files no pass finds again.
    // Meanwhile such an upload, which no claim names, reads as missing (404).
    for (const upload of unused) if (upload.inFiles) await deps.uploadFiles?.remove(upload.id);
    await deps.uploads.delete(
      deps.db,
      unused.map((u) => u.id),
    );
    purged += unused.length;
  }
  return purged;
}
