import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { components, paths } from '@svc/sdk';
import { api, unwrap } from './client';
import { ApiError, setCsrfToken } from './http';
import type { Session } from './session';

// Account mail (#30): sign-up answers "check your inbox" (the same whether or not the address has an
// account), the mailed link signs the person in, and a password is reset by a mailed link.

export type SignUpInput = NonNullable<
  paths['/dashboard/api/accounts']['post']['requestBody']
>['content']['application/json'];
export type SignUpAccepted = components['schemas']['SignUpAccepted'];

export const useSignUp = () =>
  useMutation<SignUpAccepted, ApiError, SignUpInput>({
    mutationFn: async (body) => (await unwrap(api.POST('/dashboard/api/accounts', { body }))).data,
  });

/** Follows a verification link with the sign-up's password: the account is created and this browser signed in. */
export function useVerifyEmail() {
  const client = useQueryClient();
  return useMutation<Session, ApiError, { token: string; password: string }>({
    mutationFn: async (body) => (await unwrap(api.POST('/dashboard/api/email-verifications', { body }))).data,
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      client.removeQueries();
      client.setQueryData(['session'], session);
    },
  });
}

export const useRequestPasswordReset = () =>
  useMutation<{ status: string; email: string }, ApiError, { email: string }>({
    mutationFn: async (body) => (await unwrap(api.POST('/dashboard/api/password-resets', { body }))).data,
  });

export const useResetPassword = () =>
  useMutation<{ status: string; sessionsEnded: number }, ApiError, { token: string; password: string }>({
    mutationFn: async (body) =>
      (await unwrap(api.POST('/dashboard/api/password-resets/complete', { body }))).data,
  });

/** The token of a mailed link: it travels in the fragment (`#token=…`), never sent to a server. */
export function tokenFromHash(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}
