import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@svc/sdk';
import { api, unwrap } from './client';
import { ApiError, setCsrfToken } from './http';

export type Role = 'creator' | 'platform' | 'operator';

export type Session = components['schemas']['DashboardSession'];

const SESSION_KEY = ['session'] as const;

async function readSession(): Promise<Session | null> {
  try {
    const { data } = await unwrap(api.GET('/dashboard/api/session'));
    setCsrfToken(data.csrfToken);
    return data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(undefined);
      return null;
    }
    throw error;
  }
}

/** The signed-in session, or null when signed out. */
export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: readSession, staleTime: 60_000 });
}

function useSessionMutation<I>(call: (input: I) => Promise<{ data: Session }>) {
  const client = useQueryClient();
  return useMutation<Session, ApiError, I>({
    mutationFn: async (input) => (await call(input)).data,
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      client.removeQueries();
      client.setQueryData(SESSION_KEY, session);
    },
  });
}

// Sign-up answers "check your inbox" (#30): api/account-mail.ts.

export const useSignIn = () =>
  useSessionMutation((body: { email: string; password: string }) =>
    unwrap(api.POST('/dashboard/api/session', { body })),
  );

export const useOperatorSignIn = () =>
  useSessionMutation((body: { token: string }) =>
    unwrap(api.POST('/dashboard/api/operator-session', { body })),
  );

export function useSignOut() {
  const client = useQueryClient();
  return useMutation<void, ApiError>({
    mutationFn: async () => {
      await unwrap(api.DELETE('/dashboard/api/session'));
    },
    onSettled: () => {
      setCsrfToken(undefined);
      client.removeQueries();
      client.setQueryData(SESSION_KEY, null);
    },
  });
}
