import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, requestJson, setCsrfToken } from './http';

export type Role = 'creator' | 'platform' | 'operator';

export interface Session {
  account: { id: string; email: string; name: string; role: Role; platformId: string | null };
  csrfToken: string;
  expiresAt: string;
  environment: 'sandbox' | 'production';
}

const SESSION_KEY = ['session'] as const;

async function readSession(): Promise<Session | null> {
  try {
    const { data } = await requestJson<{ data: Session }>('GET', '/dashboard/api/session');
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

export interface SignUpInput {
  email: string;
  password: string;
  name: string;
  role: 'creator' | 'platform';
}

export const useSignUp = () =>
  useSessionMutation((input: SignUpInput) => requestJson('POST', '/dashboard/api/accounts', input));

export const useSignIn = () =>
  useSessionMutation((input: { email: string; password: string }) =>
    requestJson('POST', '/dashboard/api/session', input),
  );

export const useOperatorSignIn = () =>
  useSessionMutation((input: { token: string }) =>
    requestJson('POST', '/dashboard/api/operator-session', input),
  );

export function useSignOut() {
  const client = useQueryClient();
  return useMutation<void, ApiError>({
    mutationFn: () => requestJson('DELETE', '/dashboard/api/session'),
    onSettled: () => {
      setCsrfToken(undefined);
      client.removeQueries();
      client.setQueryData(SESSION_KEY, null);
    },
  });
}
