import { useQuery } from '@tanstack/react-query';
import type { components } from '@svc/sdk';
import { api, unwrap } from './client';
import { ApiError } from './http';

// Long operations the dashboard follows until they settle (issue 20): a new box's initial scan.

export type BoxScanProgress = components['schemas']['BoxScanProgress'];

/** How often an unsettled scan is read again: gently (the dashboard's own endpoint, counted against no budget). */
export const SCAN_POLL_MS = 2000;

/**
 * The box's initial scan, read again every 2 s until it completes. Enforcement hears of a new box
 * a moment after it is created, so a first 404 for the box's owner means "not there yet": it is
 * asked again for a while (404 is otherwise not retried).
 */
export function useBoxScan(boxId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['box-scan', boxId],
    queryFn: async () =>
      (await unwrap(api.GET('/dashboard/api/boxes/{id}/scan', { params: { path: { id: boxId } } }))).data,
    enabled,
    retry: (failures, error) => error instanceof ApiError && error.status === 404 && failures < 5,
    retryDelay: SCAN_POLL_MS,
    refetchInterval: (query) => (query.state.data?.status === 'completed' ? false : SCAN_POLL_MS),
  });
}
