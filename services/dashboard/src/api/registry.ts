import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components, paths } from '@svc/sdk';
import { api, idempotencyKey, unwrap } from './client';
import type { ApiError } from './http';

export type Claim = components['schemas']['Claim'];
export type ClaimListItem = components['schemas']['ClaimListItem'];
export type Box = components['schemas']['Box'];
type Body<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
export type NewClaim = Body<'/v1/svc/claims', 'post'>;
export type NewBox = Body<'/v1/svc/boxes', 'post'>;
export type BoxChange = Body<'/v1/svc/boxes/{id}', 'patch'>;

export type ClaimStatus = components['schemas']['ClaimListItem']['status'];
export type Policy = components['schemas']['Box']['policy'];

/** A list's filters as the API takes them; an empty one is not sent. */
const given = <T extends Record<string, string | undefined>>(filters: T) =>
  Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== ''));

export function useMyClaims(
  offset: number,
  limit: number,
  filters: { status?: ClaimStatus | undefined; q?: string | undefined } = {},
) {
  return useQuery({
    queryKey: ['claims', 'mine', offset, limit, filters.status ?? '', filters.q ?? ''],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/claims', {
          params: { query: { owner: 'me', offset, limit, ...given(filters) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useClaim(id: string) {
  return useQuery({
    queryKey: ['claim', id],
    queryFn: async () => (await unwrap(api.GET('/v1/svc/claims/{id}', { params: { path: { id } } }))).data,
    // While a picture's face is being examined, look again every few seconds (one call a claim).
    refetchInterval: (query) =>
      query.state.data?.referenceImages.some((image) => image.face.status === 'pending') === true &&
      query.state.data.status === 'verified'
        ? 3000
        : false,
  });
}

export function useCreateClaim() {
  const client = useQueryClient();
  return useMutation<components['schemas']['CreatedClaim'], ApiError, NewClaim>({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.POST('/v1/svc/claims', { body, params: { header: { 'Idempotency-Key': idempotencyKey() } } }),
        )
      ).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['claims'] }),
  });
}

/** Sandbox only: the simulated identity provider's step (docs/spec/contracts.md §9). */
export function useVerifyInSandbox(id: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, 'SILVER' | 'GOLD'>({
    mutationFn: (tier) =>
      unwrap(
        api.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id } }, body: { tier } }),
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['claim', id] });
      void client.invalidateQueries({ queryKey: ['claims'] });
    },
  });
}

export function useBox(id: string) {
  return useQuery({
    queryKey: ['box', id],
    queryFn: async () => (await unwrap(api.GET('/v1/svc/boxes/{id}', { params: { path: { id } } }))).data,
  });
}

export function useMyBoxes(
  offset: number,
  limit: number,
  filters: { policy?: Policy | undefined; q?: string | undefined } = {},
) {
  return useQuery({
    queryKey: ['boxes', 'mine', offset, limit, filters.policy ?? '', filters.q ?? ''],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/boxes', {
          params: { query: { owner: 'me', offset, limit, ...given(filters) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useCreateBox() {
  const client = useQueryClient();
  return useMutation<Box, ApiError, NewBox>({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.POST('/v1/svc/boxes', { body, params: { header: { 'Idempotency-Key': idempotencyKey() } } }),
        )
      ).data,
    onSuccess: (box) => {
      void client.invalidateQueries({ queryKey: ['claim', box.claimId] });
      void client.invalidateQueries({ queryKey: ['claims'] });
      void client.invalidateQueries({ queryKey: ['boxes'] });
    },
  });
}

export function useUpdateBox(id: string) {
  const client = useQueryClient();
  return useMutation<Box, ApiError, BoxChange>({
    mutationFn: async (body) =>
      (await unwrap(api.PATCH('/v1/svc/boxes/{id}', { params: { path: { id } }, body }))).data,
    onSuccess: (box) => client.setQueryData(['box', id], box),
  });
}

export function useDeleteBox(id: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, void>({
    mutationFn: () => unwrap(api.DELETE('/v1/svc/boxes/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      client.removeQueries({ queryKey: ['box', id] });
      void client.invalidateQueries({ queryKey: ['claims'] });
      void client.invalidateQueries({ queryKey: ['claim'] });
      void client.invalidateQueries({ queryKey: ['boxes'] });
    },
  });
}
