import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components, paths } from '@svc/sdk';
import { api, idempotencyKey, unwrap } from './client';
import { formatDateTime } from './format';
import type { ApiError } from './http';

export type KeySummary =
  paths['/dashboard/api/keys']['get']['responses'][200]['content']['application/json']['data'][number];
export type NewWebhook = NonNullable<
  paths['/v1/svc/webhooks']['post']['requestBody']
>['content']['application/json'];
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type DeliveryStatus = WebhookDelivery['status'];

/** What the page shows once: a new key's secret, or a new endpoint's signing secret. */
export interface ShownSecret {
  label: string;
  secret: string;
  note?: string;
}

export function useKeys() {
  return useQuery({
    queryKey: ['keys'],
    queryFn: async () => (await unwrap(api.GET('/dashboard/api/keys'))).data,
  });
}

/** What a key is called on the page: its name, else its id. */
export function keyLabel(key: { id: string; name: string | null }): string {
  return key.name ?? key.id;
}

export function useIssueKey() {
  const client = useQueryClient();
  return useMutation<ShownSecret, ApiError, { name?: string; scope?: KeySummary['scope'] }>({
    mutationFn: async (body) => {
      const { data } = await unwrap(api.POST('/dashboard/api/keys', { body }));
      return { label: `New key ${keyLabel(data)}`, secret: data.key };
    },
    onSuccess: () => void client.invalidateQueries({ queryKey: ['keys'] }),
  });
}

export function useRotateKey() {
  const client = useQueryClient();
  return useMutation<ShownSecret, ApiError, KeySummary>({
    mutationFn: async (key) => {
      const { data } = await unwrap(
        api.POST('/dashboard/api/keys/{id}/rotate', { params: { path: { id: key.id } } }),
      );
      return {
        label: `New secret for ${keyLabel(key)}`,
        secret: data.key,
        note: `The old secret (key ${data.previousKeyId}) keeps working until ${formatDateTime(data.previousKeyExpiresAt)}.`,
      };
    },
    onSuccess: () => void client.invalidateQueries({ queryKey: ['keys'] }),
  });
}

/** Revokes a key at once; nothing replaces it (rotation is for that). */
export function useRevokeKey() {
  const client = useQueryClient();
  return useMutation<{ revokedKeyId: string; revokedAt: string }, ApiError, string>({
    mutationFn: async (id) =>
      (await unwrap(api.POST('/dashboard/api/keys/{id}/revoke', { params: { path: { id } } }))).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['keys'] }),
  });
}

export function useWebhooks(offset: number, limit: number) {
  return useQuery({
    queryKey: ['webhooks', offset, limit],
    queryFn: () => unwrap(api.GET('/v1/svc/webhooks', { params: { query: { offset, limit } } })),
    placeholderData: keepPreviousData,
  });
}

export function useWebhook(id: string) {
  return useQuery({
    queryKey: ['webhook', id],
    queryFn: async () => (await unwrap(api.GET('/v1/svc/webhooks/{id}', { params: { path: { id } } }))).data,
  });
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation<components['schemas']['WebhookEndpointWithSecret'], ApiError, NewWebhook>({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.POST('/v1/svc/webhooks', {
            body,
            params: { header: { 'Idempotency-Key': idempotencyKey() } },
          }),
        )
      ).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['webhooks'] }),
  });
}

export function useRotateWebhookSecret(id: string) {
  return useMutation<ShownSecret, ApiError, void>({
    mutationFn: async () => {
      const { data } = await unwrap(
        api.POST('/v1/svc/webhooks/{id}/rotate-secret', { params: { path: { id } } }),
      );
      return {
        label: 'New signing secret',
        secret: data.secret,
        note: `Both secrets sign deliveries until ${formatDateTime(data.previousSecretExpiresAt)}.`,
      };
    },
  });
}

export function useSendTestEvent(endpointId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, void>({
    mutationFn: () => unwrap(api.POST('/v1/svc/webhooks/test', { body: { endpointId } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['deliveries', endpointId] }),
  });
}

/**
 * An endpoint's deliveries, newest first; `status` filters them on the API's side. `watching`: a
 * re-sent delivery is followed (read every second) until its new attempt settles.
 */
export function useDeliveries(
  endpointId: string,
  offset: number,
  limit: number,
  watching = false,
  status?: DeliveryStatus,
) {
  return useQuery({
    queryKey: ['deliveries', endpointId, status ?? 'all', offset, limit],
    queryFn: () =>
      unwrap(
        api.GET('/v1/svc/webhooks/{id}/deliveries', {
          params: {
            path: { id: endpointId },
            query: { offset, limit, ...(status === undefined ? {} : { status }) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
    // A delivery in flight (pending) is watched until it settles: the log shows its progress.
    refetchInterval: (query) =>
      watching || query.state.data?.data.some((delivery) => delivery.status === 'pending') === true
        ? 1000
        : false,
  });
}

export function useRetryDelivery(endpointId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, string>({
    mutationFn: (deliveryId) =>
      unwrap(
        api.POST('/v1/svc/webhooks/{id}/deliveries/{deliveryId}/retry', {
          params: { path: { id: endpointId, deliveryId } },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['deliveries', endpointId] }),
  });
}

export type WebhookChanges = NonNullable<
  paths['/v1/svc/webhooks/{id}']['patch']['requestBody']
>['content']['application/json'];

/** Changes an endpoint's URL, events, description, or enables or disables it. */
export function useUpdateWebhook(id: string) {
  const client = useQueryClient();
  return useMutation<components['schemas']['WebhookEndpoint'], ApiError, WebhookChanges>({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.PATCH('/v1/svc/webhooks/{id}', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body,
          }),
        )
      ).data,
    onSuccess: (endpoint) => {
      client.setQueryData(['webhook', id], endpoint);
      void client.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
}

/** Deletes an endpoint and its deliveries. */
export function useDeleteWebhook(id: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, void>({
    mutationFn: () =>
      unwrap(
        api.DELETE('/v1/svc/webhooks/{id}', {
          params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
        }),
      ),
    onSuccess: () => {
      client.removeQueries({ queryKey: ['webhook', id] });
      void client.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
}

/** Sends again every failed delivery of an endpoint since a time (one attempt each). */
export function useReplayFailed(id: string) {
  const client = useQueryClient();
  return useMutation<components['schemas']['WebhookReplay'], ApiError, { since: string }>({
    mutationFn: async (body) =>
      (
        await unwrap(
          api.POST('/v1/svc/webhooks/{id}/replay', {
            params: { path: { id }, header: { 'Idempotency-Key': idempotencyKey() } },
            body,
          }),
        )
      ).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: ['deliveries', id] }),
  });
}

export type RequestLogQuery = NonNullable<paths['/dashboard/api/request-logs']['get']['parameters']['query']>;

/** The platform's keys' recent requests, newest first (the gateway's request log). */
export function useRequestLogs(query: RequestLogQuery) {
  return useQuery({
    queryKey: ['request-logs', query],
    queryFn: () => unwrap(api.GET('/dashboard/api/request-logs', { params: { query } })),
    placeholderData: keepPreviousData,
  });
}
