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

/** `code`: the authenticator's code (or a recovery code) once the account has two-step sign-in. */
export const useSignIn = () =>
  useSessionMutation((body: { email: string; password: string; code?: string }) =>
    unwrap(api.POST('/dashboard/api/session', { body })),
  );

/** `code`: the operator's TOTP code (required; 409 INVALID_STATE until a secret is enrolled). */
export const useOperatorSignIn = () =>
  useSessionMutation((body: { token: string; code?: string }) =>
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

// The account page (#30): password change, sign out everywhere, two-step sign-in.

export type AccountSecurity = components['schemas']['AccountSecurity'];
export type TotpEnrolment = components['schemas']['TotpEnrolment'];

const SECURITY_KEY = ['account-security'] as const;

export function useAccountSecurity() {
  return useQuery({
    queryKey: SECURITY_KEY,
    queryFn: async () => (await unwrap(api.GET('/dashboard/api/account/security'))).data,
  });
}

export function useChangePassword() {
  return useMutation<{ endedSessions: number }, ApiError, { currentPassword: string; newPassword: string }>({
    mutationFn: async (body) => (await unwrap(api.POST('/dashboard/api/account/password', { body }))).data,
  });
}

/** Ends every session of the account, this one too: the dashboard is signed out. */
export function useSignOutEverywhere() {
  const client = useQueryClient();
  return useMutation<void, ApiError>({
    mutationFn: async () => {
      await unwrap(api.DELETE('/dashboard/api/account/sessions'));
    },
    onSuccess: () => {
      setCsrfToken(undefined);
      client.removeQueries();
      client.setQueryData(SESSION_KEY, null);
    },
  });
}

export function useStartTotp() {
  const client = useQueryClient();
  return useMutation<TotpEnrolment, ApiError>({
    mutationFn: async () => (await unwrap(api.POST('/dashboard/api/account/totp'))).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: SECURITY_KEY }),
  });
}

export function useConfirmTotp() {
  const client = useQueryClient();
  return useMutation<{ recoveryCodes: string[] }, ApiError, { code: string }>({
    mutationFn: async (body) =>
      (await unwrap(api.POST('/dashboard/api/account/totp/confirm', { body }))).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: SECURITY_KEY }),
  });
}

export function useDisableTotp() {
  const client = useQueryClient();
  return useMutation<void, ApiError, { password: string }>({
    mutationFn: async (body) => {
      await unwrap(api.POST('/dashboard/api/account/totp/disable', { body }));
    },
    onSuccess: () => void client.invalidateQueries({ queryKey: SECURITY_KEY }),
  });
}

/** The operator's first sign-in: a TOTP secret for the authenticator, confirmed by the sign-in's code. */
export function useOperatorTotpEnrolment() {
  return useMutation<TotpEnrolment, ApiError, { token: string }>({
    mutationFn: async (body) =>
      (await unwrap(api.POST('/dashboard/api/operator-session/totp', { body }))).data,
  });
}
