import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@svc/sdk';
import { api, idempotencyKey, unwrap } from './client';
import type { ApiError } from './http';

// A platform developer's view of its integration: plan and usage, licenses, violations, grace
// periods and obligations, and the sandbox clock. All of it is the public API (and the dashboard's
// usage endpoint), read as the signed-in tenant.

export type PlanUsage = components['schemas']['PlanUsage'];
export type LicenseListItem = components['schemas']['LicenseListItem'];
export type ViolationStatus = components['schemas']['Violation']['status'];

/** The plan, its limits, and the minute's and day's counts of each budget (refreshed every 15 s). */
export function usePlanUsage() {
  return useQuery({
    queryKey: ['plan-usage'],
    queryFn: async () => (await unwrap(api.GET('/dashboard/api/usage'))).data,
    // The usage endpoint counts against no budget, so watching it costs the plan nothing.
    refetchInterval: 15_000,
  });
}

export function useLicenses(offset: number, limit: number) {
  return useQuery({
    queryKey: ['licenses', offset, limit],
    queryFn: () => unwrap(api.GET('/v1/svc/licenses', { params: { query: { offset, limit } } })),
    placeholderData: keepPreviousData,
  });
}

export function useLicense(id: string) {
  return useQuery({
    queryKey: ['license', id],
    queryFn: async () => (await unwrap(api.GET('/v1/svc/licenses/{id}', { params: { path: { id } } }))).data,
  });
}

export function useViolations(status: ViolationStatus | undefined, offset: number, limit: number) {
  return useQuery({
    queryKey: ['violations', status ?? 'all', offset, limit],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/violations', {
          params: { query: { offset, limit, ...(status === undefined ? {} : { status }) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** What to take down now, and the grace periods still running (the second path family). */
export function useObligations() {
  return useQuery({
    queryKey: ['obligations'],
    queryFn: () => unwrap(api.GET('/enforcement/obligations')),
  });
}

/** Sandbox only: moves the tenant's clock; every reminder, expiry and enforcement due fires. */
export function useAdvanceTime() {
  const client = useQueryClient();
  return useMutation<{ now: string; advancedBySeconds: number; stepsFired: number }, ApiError, number>({
    mutationFn: async (seconds) =>
      (
        await unwrap(
          api.POST('/v1/svc/test-helpers/advance-time', {
            body: { seconds },
            params: { header: { 'Idempotency-Key': idempotencyKey() } },
          }),
        )
      ).data,
    onSuccess: () => {
      for (const key of ['violations', 'grace-periods', 'obligations', 'licenses', 'license']) {
        void client.invalidateQueries({ queryKey: [key] });
      }
    },
  });
}
