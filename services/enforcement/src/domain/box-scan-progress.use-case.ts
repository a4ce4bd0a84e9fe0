import { errors } from '@svc/errors';
import type { Caller, UsesPorts } from './ports';

export type BoxScanState = 'waiting' | 'in_progress' | 'retrying' | 'completed';

export interface BoxScanProgress {
  boxId: string;
  status: BoxScanState;
  avatarsScanned: number;
  violationsFound: number;
  attempts: number;
  startedAt: Date | null;
  completedAt: Date | null;
  nextAttemptAt: Date | null;
}

/**
 * The box owner reads how far its box's initial scan has got (issue 20: the dashboard shows it).
 * Another tenant's box, or a box enforcement has not heard of, is 404 (docs/spec/contracts.md §6). A box
 * known but not yet indexed by detection has no scan yet: `waiting`.
 */
export async function getBoxScanProgress(
  ctx: UsesPorts<'db' | 'boxes' | 'scans'>,
  caller: Caller,
  boxId: string,
): Promise<BoxScanProgress> {
  const box = await ctx.boxes.find(ctx.db, boxId);
  if (box === null || box.deletedAt !== null || box.ownerPlatformId !== caller.platformId) {
    throw errors.notFound('Box', boxId);
  }
  const scan = await ctx.scans.find(ctx.db, boxId);
  if (scan === null) {
    return {
      boxId,
      status: 'waiting',
      avatarsScanned: 0,
      violationsFound: 0,
      attempts: 0,
      startedAt: null,
      completedAt: null,
      nextAttemptAt: null,
    };
  }
  const retrying = scan.status === 'in_progress' && scan.attempts > 0;
  return {
    boxId,
    status: scan.status === 'completed' ? 'completed' : retrying ? 'retrying' : 'in_progress',
    avatarsScanned: scan.avatarsScanned,
    violationsFound: scan.violationsCreated,
    attempts: scan.attempts,
    startedAt: scan.startedAt,
    completedAt: scan.completedAt,
    nextAttemptAt: retrying ? scan.nextAttemptAt : null,
  };
}
