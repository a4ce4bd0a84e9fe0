import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { ApiError } from './http';

// The operator's pages: the operator API (/admin), the operator's session standing in for ADMIN_TOKEN.

export function usePlatforms(offset: number, limit: number) {
  return useQuery({
    queryKey: ['platforms', offset, limit],
    queryFn: () => unwrap(api.GET('/admin/platforms', { params: { query: { offset, limit } } })),
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
  return useMutation<unknown, ApiError, { id: string; tier: 'SILVER' | 'GOLD' }>({
    mutationFn: ({ id, tier }) =>
      unwrap(
        api.POST('/admin/claims/{id}/verify', {
          params: { path: { id } },
          body: { tier, method: 'dashboard' },
        }),
      ),
  });
}

export function useRejectClaim() {
  return useMutation<unknown, ApiError, { id: string; reason: string }>({
    mutationFn: ({ id, reason }) =>
      unwrap(api.POST('/admin/claims/{id}/reject', { params: { path: { id } }, body: { reason } })),
  });
}

export function useDecideAppeal() {
  return useMutation<unknown, ApiError, { id: string; outcome: 'upheld' | 'denied'; notes?: string }>({
    mutationFn: ({ id, outcome, notes }) =>
      unwrap(
        api.POST('/admin/appeals/{id}/decide', {
          params: { path: { id } },
          body: { outcome, ...(notes === undefined || notes === '' ? {} : { notes }) },
        }),
      ),
  });
}
