import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components, paths } from '@svc/sdk';
import { api, idempotencyKey, unwrap } from './client';
import type { ApiError } from './http';

// What a box owner (a creator's session, its own tenant) reads and decides on its boxes: the box's
// statistics month by month, license requests (approve, deny), violations and grace periods of
// every platform on the box, and what the owner is owed. Every call is an operation of the public
// API; the dashboard only lays out what it answers.

export type BoxStatistics = components['schemas']['BoxStatistics'];
export type BoxLicenseRequest = components['schemas']['BoxLicenseRequest'];
export type BoxViolation = components['schemas']['BoxViolation'];
export type RequestStatus = NonNullable<
  NonNullable<paths['/v1/svc/boxes/{id}/license-requests']['get']['parameters']['query']>['status']
>;
export type ViolationStatus = NonNullable<
  NonNullable<paths['/v1/svc/boxes/{id}/violations']['get']['parameters']['query']>['status']
>;
export type RevenueBalance =
  paths['/revenue/balance']['get']['responses'][200]['content']['application/json'];

/** The month before `period` (`YYYY-MM`). */
export function previousPeriod(period: string): string {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const date = new Date(Date.UTC(year, month - 2, 1));
  return date.toISOString().slice(0, 7);
}

/** The box's statistics of the current period (the server's month). */
export function useBoxStats(boxId: string) {
  return useQuery({
    queryKey: ['box-stats', boxId, 'current'],
    queryFn: async () =>
      (await unwrap(api.GET('/v1/svc/boxes/{id}/stats', { params: { path: { id: boxId } } }))).data,
  });
}

/**
 * The statistics of the `count - 1` months before `current`, oldest first. A past month's figures
 * change rarely (a late usage report), so they are kept for the page's life.
 */
export function useEarlierBoxStats(boxId: string, current: string | undefined, count: number) {
  const periods: string[] = [];
  let period = current;
  for (let i = 1; i < count && period !== undefined; i += 1) {
    period = previousPeriod(period);
    periods.unshift(period);
  }
  return useQueries({
    queries: periods.map((month) => ({
      queryKey: ['box-stats', boxId, month],
      queryFn: async () =>
        (
          await unwrap(
            api.GET('/v1/svc/boxes/{id}/stats', {
              params: { path: { id: boxId }, query: { period: month } },
            }),
          )
        ).data,
      staleTime: Infinity,
    })),
  });
}

export function useBoxLicenseRequests(
  boxId: string,
  status: RequestStatus | undefined,
  offset: number,
  limit: number,
) {
  return useQuery({
    queryKey: ['box-requests', boxId, status ?? 'all', offset, limit],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/boxes/{id}/license-requests', {
          params: {
            path: { id: boxId },
            query: { offset, limit, ...(status === undefined ? {} : { status }) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

function useAfterDecision(boxId: string) {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: ['box-requests', boxId] });
    void client.invalidateQueries({ queryKey: ['box-stats', boxId, 'current'] });
  };
}

export function useApproveRequest(boxId: string) {
  const after = useAfterDecision(boxId);
  return useMutation<
    components['schemas']['LicenseRequest'],
    ApiError,
    { id: string; monthlyFee?: number | undefined }
  >({
    mutationFn: async ({ id, monthlyFee }) =>
      (
        await unwrap(
          api.POST('/v1/svc/license-requests/{id}/approve', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body: monthlyFee === undefined ? {} : { monthlyFee },
          }),
        )
      ).data,
    onSuccess: after,
  });
}

export function useDenyRequest(boxId: string) {
  const after = useAfterDecision(boxId);
  return useMutation<components['schemas']['LicenseRequest'], ApiError, { id: string; reason: string }>({
    mutationFn: async ({ id, reason }) =>
      (
        await unwrap(
          api.POST('/v1/svc/license-requests/{id}/deny', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body: { reason },
          }),
        )
      ).data,
    onSuccess: after,
  });
}

export function useBoxViolations(
  boxId: string,
  status: ViolationStatus | undefined,
  offset: number,
  limit: number,
) {
  return useQuery({
    queryKey: ['box-violations', boxId, status ?? 'all', offset, limit],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/boxes/{id}/violations', {
          params: {
            path: { id: boxId },
            query: { offset, limit, ...(status === undefined ? {} : { status }) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** What the account is owed as a box owner (receivable) and owes (balance). */
export function useRevenueBalance() {
  return useQuery({
    queryKey: ['revenue-balance'],
    queryFn: () => unwrap(api.GET('/revenue/balance')),
  });
}

/** The box owner contests how a violation of its box was resolved (reviewed by the operator as an appeal). */
export function useContestResolution(boxId: string) {
  const client = useQueryClient();
  return useMutation<
    paths['/v1/svc/violations/{id}/contest']['post']['responses'][200]['content']['application/json']['data'],
    ApiError,
    { id: string; explanation: string }
  >({
    mutationFn: async ({ id, explanation }) =>
      (
        await unwrap(
          api.POST('/v1/svc/violations/{id}/contest', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body: { explanation },
          }),
        )
      ).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['box-violations', boxId] }),
  });
}
