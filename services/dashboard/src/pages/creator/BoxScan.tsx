import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { formatDateTime, formatTime } from '../../api/format';
import { ApiError } from '../../api/http';
import { useBoxScan, type BoxScanProgress } from '../../api/progress';

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function describe(scan: BoxScanProgress): string {
  const found = `${plural(scan.avatarsScanned, 'avatar', 'avatars')} scanned, ${plural(
    scan.violationsFound,
    'violation',
    'violations',
  )} found`;
  switch (scan.status) {
    case 'waiting':
      return 'Waiting to start: the box is being indexed for matching, then every avatar already reported on every platform is scanned.';
    case 'in_progress':
      return `Scanning: ${found} so far.`;
    case 'retrying':
      return `Interrupted (detection did not answer), retrying${
        scan.nextAttemptAt === null ? '' : ` at ${formatTime(scan.nextAttemptAt)}`
      }: ${found} so far.`;
    case 'completed':
      return `Completed${scan.completedAt === null ? '' : ` ${formatDateTime(scan.completedAt)}`}: ${found}.`;
  }
}

/**
 * The box's initial scan (issue 20): every avatar already reported is checked against the new box.
 * Its state is read again every 2 s until it completes, and announced politely as it changes; when
 * it completes, the box's violations and figures are read again to show what it found.
 */
export function BoxScan({ boxId }: { boxId: string }) {
  const scan = useBoxScan(boxId, true);
  const client = useQueryClient();
  const status = scan.data?.status;
  const wasRunning = useRef(false);
  useEffect(() => {
    if (status === undefined) return;
    if (status !== 'completed') wasRunning.current = true;
    else if (wasRunning.current) {
      wasRunning.current = false;
      void client.invalidateQueries({ queryKey: ['box-violations', boxId] });
      void client.invalidateQueries({ queryKey: ['box-stats', boxId, 'current'] });
    }
  }, [status, boxId, client]);

  const notYet = scan.error instanceof ApiError && scan.error.status === 404;
  const failed = scan.error !== null && !notYet && scan.data === undefined;
  const settled = status === 'completed' || failed;
  let text: string;
  if (scan.data !== undefined) text = describe(scan.data);
  else if (failed) text = `Could not read the scan's progress: ${scan.error.message}`;
  else text = 'Starting the scan…';
  return (
    <section aria-labelledby="scan-title" aria-busy={!settled} className="scan-progress">
      <h2 id="scan-title">Initial scan</h2>
      <p role="status" aria-live="polite" data-scan-status={status ?? (failed ? 'unknown' : 'starting')}>
        {text}
      </p>
      {settled ? null : <progress aria-label="Initial scan in progress" />}
    </section>
  );
}
