import { z } from 'zod';
import { dataOf, idSchema, storable } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { emailSchema, sessionSchema, signUpBodySchema } from './dashboard';

// Members of a tenant (issue #32, "Platform members"; docs/adr/0034): a platform or creator account
// invites people by e-mail, each with a role the gateway enforces on every call their sessions make.

export const memberRoleSchema = z.enum(['owner', 'developer', 'read_only']).meta({
  id: 'MemberRole',
  description:
    '`owner`: everything, including members; `developer`: everything but members (keys, webhooks, claims, boxes, licenses); `read_only`: reads only (GET), and their own password and second factor',
});

export type MemberRole = z.infer<typeof memberRoleSchema>;

/** How long an invitation's link works. */
export const INVITATION_TTL_DAYS = 7;

export const memberSchema = z
  .object({
    accountId: z.string().meta({ example: 'acct_4eC39HqLyjWDarjtT1zdp7dc' }),
    email: z.string(),
    name: z.string(),
    role: memberRoleSchema,
    joinedAt: z.iso.datetime(),
    you: z.boolean().meta({ description: 'The signed-in account' }),
  })
  .meta({ id: 'Member' });

export const invitationSchema = z
  .object({
    id: z.string().meta({ example: 'inv_8Yq2cKxW3rT9mNbV4hJd1s' }),
    email: z.string(),
    role: memberRoleSchema,
    invitedBy: z.string().meta({ description: "The inviting member's name" }),
    invitedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'Invitation' });

export const membersSchema = z
  .object({
    members: z.array(memberSchema).meta({ description: 'Oldest first' }),
    invitations: z
      .array(invitationSchema)
      .meta({ description: 'Pending (neither accepted nor expired), newest first' }),
  })
  .meta({ id: 'Members' });

export const inviteMemberBodySchema = z.object({
  email: emailSchema,
  role: memberRoleSchema,
});

export const changeMemberRoleBodySchema = z.object({ role: memberRoleSchema });

export const acceptInvitationBodySchema = z.object({
  token: storable(z.string().trim())
    .min(1, 'required')
    .max(200)
    .meta({ description: 'The token of the mailed link (after `#token=`)' }),
  name: signUpBodySchema.shape.name.meta({ description: 'Your name, as the other members see it' }),
  password: signUpBodySchema.shape.password,
});

const tags = ['Dashboard'];
const common = { service: 'gateway' as const, tags, auth: 'session' as const };
const idParamSchema = z.object({ id: idSchema });

export const memberOperations = {
  listMembers: defineOperation({
    ...common,
    id: 'dashboardListMembers',
    method: 'get',
    path: '/dashboard/api/members',
    summary: "The signed-in tenant's members and pending invitations (any member)",
    responses: { 200: { description: 'Members and invitations', schema: dataOf(membersSchema) } },
  }),
  inviteMember: defineOperation({
    ...common,
    id: 'dashboardInviteMember',
    errors: ['FORBIDDEN', 'INVALID_STATE'],
    method: 'post',
    path: '/dashboard/api/members/invitations',
    summary: `Invite someone by e-mail with a role (owners only); the link works ${INVITATION_TTL_DAYS} days`,
    description:
      'Inviting an address again replaces its pending invitation (a new link; the old one stops working). An address that already has an account answers 409 INVALID_STATE: an account belongs to one tenant.',
    request: { body: inviteMemberBodySchema },
    responses: { 201: { description: 'Invited: the link is mailed', schema: dataOf(invitationSchema) } },
  }),
  revokeInvitation: defineOperation({
    ...common,
    id: 'dashboardRevokeInvitation',
    errors: ['FORBIDDEN', 'NOT_FOUND'],
    method: 'delete',
    path: '/dashboard/api/members/invitations/:id',
    summary: 'Withdraw a pending invitation: its link stops working (owners only)',
    request: { params: idParamSchema },
    responses: {
      200: {
        description: 'Withdrawn',
        schema: dataOf(z.object({ id: z.string(), revokedAt: z.iso.datetime() })),
      },
    },
  }),
  changeMemberRole: defineOperation({
    ...common,
    id: 'dashboardChangeMemberRole',
    errors: ['FORBIDDEN', 'NOT_FOUND', 'INVALID_STATE'],
    method: 'patch',
    path: '/dashboard/api/members/:id',
    summary: "Change a member's role (owners only); the tenant keeps at least one owner (409)",
    description: "The member's running sessions carry the new role from their next call.",
    request: { params: idParamSchema, body: changeMemberRoleBodySchema },
    responses: { 200: { description: 'The member with its new role', schema: dataOf(memberSchema) } },
  }),
  removeMember: defineOperation({
    ...common,
    id: 'dashboardRemoveMember',
    errors: ['FORBIDDEN', 'NOT_FOUND', 'INVALID_STATE'],
    method: 'delete',
    path: '/dashboard/api/members/:id',
    summary:
      'Remove a member (owners; any member may remove themselves); the tenant keeps at least one owner (409)',
    description: 'The account is deleted and its sessions end at once.',
    request: { params: idParamSchema },
    responses: {
      200: {
        description: 'Removed',
        schema: dataOf(z.object({ accountId: z.string(), removedAt: z.iso.datetime() })),
      },
    },
  }),
  acceptInvitation: defineOperation({
    ...common,
    auth: 'public',
    id: 'dashboardAcceptInvitation',
    errors: ['FORBIDDEN'],
    method: 'post',
    path: '/dashboard/api/invitations/accept',
    summary:
      'Follow the invitation link with a name and a password: the account joins the inviting tenant with its role and is signed in (sets the session cookie)',
    description:
      'A link that expired, was withdrawn or was used answers 400 VALIDATION_ERROR naming `token`; the password follows the sign-up rules (400 naming `password`).',
    request: { body: acceptInvitationBodySchema },
    responses: { 200: { description: 'Joined and signed in', schema: dataOf(sessionSchema) } },
  }),
};
