import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components, paths } from '@svc/sdk';
import { api, idempotencyKey, unwrap } from './client';
import type { ApiError } from './http';
import { rememberSandboxNow } from './sandbox-clock';

// A platform developer's view of its integration: plan and usage, licenses, violations, grace
// periods and obligations, and the sandbox clock. All of it is the public API (and the dashboard's
// usage endpoint), read as the signed-in tenant.

export type PlanUsage = components['schemas']['PlanUsage'];
export type LicenseListItem = components['schemas']['LicenseListItem'];
export type ViolationStatus = components['schemas']['Violation']['status'];
export type LicenseStatus = components['schemas']['LicenseListItem']['status'];

/** The plan, its limits, and the minute's and day's counts of each budget (refreshed every 15 s). */
export function usePlanUsage() {
  return useQuery({
    queryKey: ['plan-usage'],
    queryFn: async () => (await unwrap(api.GET('/dashboard/api/usage'))).data,
    // The usage endpoint counts against no budget, so watching it costs the plan nothing.
    refetchInterval: 15_000,
  });
}

/** The platform's licenses, newest first; `status` filters them on the API's side. */
export function useLicenses(offset: number, limit: number, status?: LicenseStatus) {
  return useQuery({
    queryKey: ['licenses', status ?? 'all', offset, limit],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/licenses', {
          params: { query: { offset, limit, ...(status === undefined ? {} : { status }) } },
        }),
      ),
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
    onSuccess: (moved) => {
      // The countdowns on the pages run on the sandbox clock from now on (./sandbox-clock.ts).
      rememberSandboxNow(client, moved.now);
      for (const key of ['violations', 'violation', 'grace-periods', 'obligations', 'licenses', 'license']) {
        void client.invalidateQueries({ queryKey: [key] });
      }
    },
  });
}

export type LicenseTier = components['schemas']['LicenseListItem']['tier'];
export type RenewedLicense =
  paths['/v1/svc/licenses/{id}/renew']['post']['responses'][200]['content']['application/json']['data'];
export type CancelledLicense =
  paths['/v1/svc/licenses/{id}']['delete']['responses'][200]['content']['application/json']['data'];
export type UsageReportResult = components['schemas']['UsageReportResult'];
export type UsageReport = NonNullable<
  paths['/v1/svc/licenses/{id}/usage']['post']['requestBody']
>['content']['application/json'];

/** After a change to a license: its page, the list and what the platform owes are read again. */
function useAfterLicenseChange(id: string) {
  const client = useQueryClient();
  return () => {
    for (const key of [['license', id], ['licenses'], ['obligations']]) {
      void client.invalidateQueries({ queryKey: key });
    }
  };
}

/** Extends an active license by `term` months; a new tier may wait for the owner's approval (202). */
export function useRenewLicense(id: string) {
  const after = useAfterLicenseChange(id);
  return useMutation<RenewedLicense, ApiError, { term: number; tier?: LicenseTier | undefined }>({
    mutationFn: async ({ term, tier }) =>
      (
        await unwrap(
          api.POST('/v1/svc/licenses/{id}/renew', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body: tier === undefined ? { term } : { term, tier },
          }),
        )
      ).data,
    onSuccess: after,
  });
}

/** Cancels a license at once, or at the end of the current billing month. */
export function useCancelLicense(id: string) {
  const after = useAfterLicenseChange(id);
  return useMutation<
    CancelledLicense,
    ApiError,
    { reason?: string | undefined; effectiveDate: 'immediate' | 'end_of_billing_period' }
  >({
    mutationFn: async ({ reason, effectiveDate }) =>
      (
        await unwrap(
          api.DELETE('/v1/svc/licenses/{id}', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body: reason === undefined ? { effectiveDate } : { reason, effectiveDate },
          }),
        )
      ).data,
    onSuccess: after,
  });
}

/** Reports (or corrects) a period's usage; the royalty is computed from the revenue. */
export function useReportUsage(id: string) {
  const after = useAfterLicenseChange(id);
  return useMutation<UsageReportResult, ApiError, UsageReport>({
    mutationFn: async (report) =>
      (
        await unwrap(
          api.POST('/v1/svc/licenses/{id}/usage', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body: report,
          }),
        )
      ).data,
    onSuccess: after,
  });
}

export type ViolationDetail = components['schemas']['Violation'];
export type Resolution = NonNullable<
  paths['/v1/svc/violations/{id}/resolve']['post']['requestBody']
>['content']['application/json'];
export type Appeal = NonNullable<
  paths['/v1/svc/violations/{id}/appeal']['post']['requestBody']
>['content']['application/json'];

export function useViolation(id: string) {
  return useQuery({
    queryKey: ['violation', id],
    queryFn: async () =>
      (await unwrap(api.GET('/v1/svc/violations/{id}', { params: { path: { id } } }))).data,
  });
}

/** The platform's active licenses on one box: what a `licensed` resolution may name. */
export function useActiveLicensesOn(boxId: string | undefined) {
  return useQuery({
    queryKey: ['licenses', 'active-on', boxId],
    enabled: boxId !== undefined,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/v1/svc/licenses', {
            params: { query: { boxId: boxId ?? '', status: 'active', limit: 100 } },
          }),
        )
      ).data,
  });
}

/** After a resolution or an appeal: the violation, the list and the obligations are read again. */
function useAfterViolationChange(id: string) {
  const client = useQueryClient();
  return () => {
    for (const key of [['violation', id], ['violations'], ['obligations']]) {
      void client.invalidateQueries({ queryKey: key });
    }
  };
}

/** Resolves a violation; the API checks it against the facts (409 with what would resolve it). */
export function useResolveViolation(id: string) {
  const after = useAfterViolationChange(id);
  return useMutation<
    paths['/v1/svc/violations/{id}/resolve']['post']['responses'][200]['content']['application/json']['data'],
    ApiError,
    Resolution
  >({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.POST('/v1/svc/violations/{id}/resolve', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body,
          }),
        )
      ).data,
    onSuccess: after,
  });
}

/** Appeals a violation: its grace period pauses while the operator reviews it. */
export function useAppealViolation(id: string) {
  const after = useAfterViolationChange(id);
  return useMutation<
    paths['/v1/svc/violations/{id}/appeal']['post']['responses'][200]['content']['application/json']['data'],
    ApiError,
    Appeal
  >({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.POST('/v1/svc/violations/{id}/appeal', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body,
          }),
        )
      ).data,
    onSuccess: after,
  });
}
