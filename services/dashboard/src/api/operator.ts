import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@svc/sdk';
import { api, unwrap } from './client';
import type { ApiError } from './http';

// The operator's pages: the operator API (/admin), the operator's session standing in for ADMIN_TOKEN.

export type ListedPlatform = components['schemas']['ListedPlatform'];
export type ReviewClaim = components['schemas']['ReviewClaim'];
export type ReviewAppeal = components['schemas']['ReviewAppeal'];
export type Plan = ListedPlatform['plan'];

export function usePlatforms(
  kind: ListedPlatform['kind'] | undefined,
  offset: number,
  limit: number,
  q = '',
) {
  return useQuery({
    queryKey: ['platforms', kind ?? 'all', offset, limit, q],
    queryFn: () =>
      unwrap(
        api.GET('/admin/platforms', {
          params: {
            query: { offset, limit, ...(kind === undefined ? {} : { kind }), ...(q === '' ? {} : { q }) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useChangePlan() {
  const client = useQueryClient();
  return useMutation<components['schemas']['Platform'], ApiError, { id: string; plan: Plan }>({
    mutationFn: async ({ id, plan }) =>
      (await unwrap(api.PATCH('/admin/platforms/{id}', { params: { path: { id } }, body: { plan } }))).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['platforms'] }),
  });
}

export type ConflictingClaim = components['schemas']['ConflictingClaim'];

/**
 * The names of these tenants (platforms and creators), in one call: a page shows names, not ids.
 * At most 100 ids a call (the API's bound); an empty list asks nothing.
 */
export function useTenantNames(ids: readonly string[]) {
  const wanted = [...new Set(ids)].sort().slice(0, 100);
  return useQuery({
    queryKey: ['tenant-names', wanted],
    enabled: wanted.length > 0,
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/admin/platforms', { params: { query: { ids: wanted.join(','), limit: 100 } } }),
      );
      return new Map(page.data.map((tenant) => [tenant.id, tenant]));
    },
    staleTime: 60_000,
  });
}

export type ReviewClaimStatus = ReviewClaim['status'];
export type ReviewAppealStatus = ReviewAppeal['status'];

/** Every tenant's claims of one status (pending: waiting for verification), oldest first. */
export function useClaimsToReview(status: ReviewClaimStatus, offset: number, limit: number, q = '') {
  return useQuery({
    queryKey: ['review-claims', status, offset, limit, q],
    queryFn: () =>
      unwrap(
        api.GET('/admin/claims', {
          params: { query: { status, offset, limit, ...(q === '' ? {} : { q }) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** Appeals and contests of one status (pending: awaiting a decision), oldest first. */
export function useAppealsToReview(status: ReviewAppealStatus, offset: number, limit: number) {
  return useQuery({
    queryKey: ['review-appeals', status, offset, limit],
    queryFn: () => unwrap(api.GET('/admin/appeals', { params: { query: { status, offset, limit } } })),
    placeholderData: keepPreviousData,
  });
}

export function useDeadLetters() {
  return useQuery({
    queryKey: ['dead-letters'],
    queryFn: () => unwrap(api.GET('/admin/dead-letters', { params: { query: { limit: 5 } } })),
  });
}

export function useVerifyClaim() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { id: string; tier: 'SILVER' | 'GOLD' }>({
    mutationFn: ({ id, tier }) =>
      unwrap(
        api.POST('/admin/claims/{id}/verify', {
          params: { path: { id } },
          body: { tier, method: 'dashboard' },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['review-claims'] }),
  });
}

export function useRejectClaim() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { id: string; reason: string }>({
    mutationFn: ({ id, reason }) =>
      unwrap(api.POST('/admin/claims/{id}/reject', { params: { path: { id } }, body: { reason } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['review-claims'] }),
  });
}

export function useDecideAppeal() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { id: string; outcome: 'upheld' | 'denied'; notes?: string }>({
    mutationFn: ({ id, outcome, notes }) =>
      unwrap(
        api.POST('/admin/appeals/{id}/decide', {
          params: { path: { id } },
          body: { outcome, ...(notes === undefined || notes === '' ? {} : { notes }) },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['review-appeals'] }),
  });
}

export type ServiceHealth = components['schemas']['ServiceHealth'];

/** Every service's readiness, outbox backlog and dead letters; refreshed while the page is open. */
export function useSystemHealth() {
  return useQuery({
    queryKey: ['system-health'],
    queryFn: () => unwrap(api.GET('/admin/health')),
    refetchInterval: 10_000,
  });
}
