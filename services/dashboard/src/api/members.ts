import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@svc/sdk';
import { api, unwrap } from './client';
import { ApiError, setCsrfToken } from './http';
import { useSession, type Session } from './session';

// Members of a platform or creator account (issue #32, "Platform members"; docs/adr/0034): owners
// invite people by e-mail with a role, change roles and remove members; the gateway enforces each
// role on every call, the dashboard only spares people controls they may not use.

export type Member = components['schemas']['Member'];
export type Invitation = components['schemas']['Invitation'];
export type MemberRole = components['schemas']['MemberRole'];

/** Each role in words: its name and, in one line, what it may do (the API's MemberRole). */
export const MEMBER_ROLES: Record<MemberRole, { label: string; explanation: string }> = {
  owner: { label: 'Owner', explanation: 'Everything, including inviting, changing and removing members.' },
  developer: {
    label: 'Developer',
    explanation: 'Everything but members: keys, webhooks, claims, boxes and licenses.',
  },
  read_only: {
    label: 'Read-only',
    explanation: 'Sees everything and changes nothing but their own password and second factor.',
  },
};

const MEMBERS_KEY = ['members'] as const;

/** The members, oldest first, and the pending invitations, newest first (any member may read them). */
export function useMembers() {
  return useQuery({
    queryKey: MEMBERS_KEY,
    queryFn: async () => (await unwrap(api.GET('/dashboard/api/members'))).data,
  });
}

/** The signed-in account's role among its members; null for the operator or while the session loads. */
export function useMemberRole(): MemberRole | null {
  return useSession().data?.account.memberRole ?? null;
}

/** True when the session may read only: the page shows a note in place of its forms. */
export function useReadOnly(): boolean {
  return useMemberRole() === 'read_only';
}

export function useInviteMember() {
  const client = useQueryClient();
  return useMutation<Invitation, ApiError, { email: string; role: MemberRole }>({
    mutationFn: async (body) => (await unwrap(api.POST('/dashboard/api/members/invitations', { body }))).data,
    onSuccess: () => void client.invalidateQueries({ queryKey: MEMBERS_KEY }),
  });
}

/** Withdraws a pending invitation: its link stops working. */
export function useWithdrawInvitation() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, Invitation>({
    mutationFn: (invitation) =>
      unwrap(
        api.DELETE('/dashboard/api/members/invitations/{id}', {
          params: { path: { id: invitation.id } },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: MEMBERS_KEY }),
  });
}

export function useChangeMemberRole() {
  const client = useQueryClient();
  return useMutation<Member, ApiError, { member: Member; role: MemberRole }>({
    mutationFn: async ({ member, role }) =>
      (
        await unwrap(
          api.PATCH('/dashboard/api/members/{id}', {
            params: { path: { id: member.accountId } },
            body: { role },
          }),
        )
      ).data,
    onSuccess: (_changed, { member }) => {
      void client.invalidateQueries({ queryKey: MEMBERS_KEY });
      // Their own role changed: the session carries it, and the pages' controls follow it.
      if (member.you) void client.invalidateQueries({ queryKey: ['session'] });
    },
  });
}

/** Removes a member; a member removing themselves (leaving) is signed out, their account deleted. */
export function useRemoveMember() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, Member>({
    mutationFn: (member) =>
      unwrap(api.DELETE('/dashboard/api/members/{id}', { params: { path: { id: member.accountId } } })),
    onSuccess: (_removed, member) => {
      if (!member.you) {
        void client.invalidateQueries({ queryKey: MEMBERS_KEY });
        return;
      }
      setCsrfToken(undefined);
      client.removeQueries();
      client.setQueryData(['session'], null);
    },
  });
}

/** Follows an invitation link with a name and a password: the account joins and this browser is signed in. */
export function useAcceptInvitation() {
  const client = useQueryClient();
  return useMutation<Session, ApiError, { token: string; name: string; password: string }>({
    mutationFn: async (body) => (await unwrap(api.POST('/dashboard/api/invitations/accept', { body }))).data,
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      client.removeQueries();
      client.setQueryData(['session'], session);
    },
  });
}
