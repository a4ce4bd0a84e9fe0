import type { Request, Router } from 'express';
import { z } from 'zod';
import { idSchema } from '@svc/contracts/common';
import {
  acceptInvitationBodySchema,
  changeMemberRoleBodySchema,
  inviteMemberBodySchema,
  memberOperations as ops,
} from '@svc/contracts/gateway';
import { parseBody, parseParams, respond } from '@svc/service-kit';
import type { Account } from '../../domain/account';
import { authenticateSession } from '../../domain/authenticate-session.use-case';
import type { GatewayContext } from '../../domain/gateway-context';
import {
  acceptInvitation,
  changeMemberRole,
  inviteMember,
  listMembers,
  removeMember,
  withdrawInvitation,
} from '../../domain/manage-members.use-case';
import type { Invitation } from '../../domain/members';
import type { ActiveSession } from '../../domain/account-ports';
import { mailLinksOf, refuseCrossSiteMail } from './account-mail.routes';
import { presentSession } from './presenters';
import { sessionCredentials, setSessionCookie } from './session-cookie';

const idParams = z.object({ id: idSchema });

function presentMember(account: Account, session: ActiveSession) {
  return {
    accountId: account.id,
    email: account.email,
    name: account.name,
    role: account.memberRole,
    joinedAt: account.createdAt.toISOString(),
    you: account.id === session.account.id,
  };
}

function presentInvitation(invitation: Invitation) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    invitedAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
  };
}

/** A tenant's members and invitations (#32, docs/adr/0034), and following an invitation's link. */
export function memberRoutes(router: Router, ctx: GatewayContext): void {
  const session = (req: Request) => authenticateSession(ctx, sessionCredentials(req));

  router.get(ops.listMembers.path, async (req, res) => {
    const active = await session(req);
    const { members, invitations } = await listMembers(ctx, active);
    respond(res, ops.listMembers, 200, {
      data: {
        members: members.map((member) => presentMember(member, active)),
        invitations: invitations.map(presentInvitation),
      },
    });
  });

  router.post(ops.inviteMember.path, async (req, res) => {
    const active = await session(req);
    const body = parseBody(inviteMemberBodySchema, req);
    const invitation = await inviteMember(ctx, active, body, mailLinksOf(req, ctx));
    respond(res, ops.inviteMember, 201, { data: presentInvitation(invitation) });
  });

  router.delete(ops.revokeInvitation.path, async (req, res) => {
    const active = await session(req);
    const { id } = parseParams(idParams, req);
    const revokedAt = await withdrawInvitation(ctx, active, id);
    respond(res, ops.revokeInvitation, 200, { data: { id, revokedAt: revokedAt.toISOString() } });
  });

  router.patch(ops.changeMemberRole.path, async (req, res) => {
    const active = await session(req);
    const { id } = parseParams(idParams, req);
    const { role } = parseBody(changeMemberRoleBodySchema, req);
    const member = await changeMemberRole(ctx, active, id, role);
    respond(res, ops.changeMemberRole, 200, { data: presentMember(member, active) });
  });

  router.delete(ops.removeMember.path, async (req, res) => {
    const active = await session(req);
    const { id } = parseParams(idParams, req);
    const removedAt = await removeMember(ctx, active, id);
    respond(res, ops.removeMember, 200, { data: { accountId: id, removedAt: removedAt.toISOString() } });
  });

  router.post(ops.acceptInvitation.path, async (req, res) => {
    refuseCrossSiteMail(req);
    const body = parseBody(acceptInvitationBodySchema, req);
    const started = await acceptInvitation(ctx, body);
    setSessionCookie(req, res, started.token, started.expiresAt);
    respond(res, ops.acceptInvitation, 200, { data: presentSession(ctx, started) });
  });
}
