import { INVITATION_TTL_DAYS, type MemberRole } from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import { newId } from '@svc/ids';
import type { Account } from './account';
import { hashMailToken, invitationMail, newMailToken, type MailLinks } from './account-mail';
import { INVITATION_TTL_MS, memberTenant, type Invitation, type MemberStore } from './members';
import { assertAcceptablePassword } from './password-policy';
import type { PlatformStore } from './ports';
import type { ActiveSession, SessionStore } from './account-ports';
import { queueMail, type AccountMailDeps } from './sign-up.use-case';
import { startSession, type StartedSession } from './start-session';

// A tenant's members (issue #32, "Platform members"; docs/adr/0034): owners invite by e-mail,
// change roles and remove members; the tenant always keeps an owner.

export type MembersDeps = AccountMailDeps & {
  members: MemberStore;
  platforms: PlatformStore;
  sessions: SessionStore;
};

const notAMember = (id: string) =>
  new AppError('NOT_FOUND', `No member ${id} in your account`, { details: { accountId: id } });

const lastOwner = () =>
  new AppError('INVALID_STATE', 'Your account must keep an owner', {
    details: 'Make another member an owner first.',
  });

export async function listMembers(
  deps: Pick<MembersDeps, 'db' | 'accounts' | 'members' | 'clock'>,
  session: ActiveSession,
): Promise<{ members: Account[]; invitations: Invitation[] }> {
  const platformId = memberTenant(session, 'read', 'list members');
  // One snapshot: an invitation accepted between two reads would list its member twice, or not at all.
  return deps.db.transaction(
    async (tx) => ({
      members: await deps.accounts.listByPlatform(tx, platformId),
      invitations: await deps.members.listOpen(tx, platformId, deps.clock.now()),
    }),
    { snapshot: true },
  );
}

/**
 * An owner invites an address with a role: the link is mailed, in the transaction that records the
 * invitation. Inviting the address again replaces its open invitation. An address with an account
 * is refused: an account belongs to one tenant.
 */
export async function inviteMember(
  deps: MembersDeps,
  session: ActiveSession,
  input: { email: string; role: MemberRole },
  links: MailLinks,
): Promise<Invitation> {
  const platformId = memberTenant(session, 'manage-members', 'invite members');
  const now = deps.clock.now();
  const token = newMailToken();
  const invitation: Invitation = {
    id: newId('inv'),
    platformId,
    email: input.email,
    role: input.role,
    tokenHash: hashMailToken(token),
    invitedBy: session.account.name,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  };
  await deps.db.transaction(async (tx) => {
    await deps.members.lockTenant(tx, platformId);
    if ((await deps.accounts.findByEmail(tx, input.email)) !== null) {
      throw new AppError('INVALID_STATE', `${input.email} already has an account`, {
        details: {
          fields: [{ field: 'email', message: 'already has an account: an account belongs to one tenant' }],
        },
      });
    }
    await deps.members.withdrawOpenFor(tx, platformId, input.email, now);
    await deps.members.insertInvitation(tx, invitation);
    const tenant = await deps.platforms.find(tx, platformId);
    await queueMail(
      deps,
      tx,
      invitationMail(links, input.email, {
        tenantName: tenant?.name ?? 'an account',
        inviterName: session.account.name,
        role: input.role,
        token,
        days: INVITATION_TTL_DAYS,
      }),
    );
  });
  deps.mailQueued?.();
  return invitation;
}

export async function withdrawInvitation(
  deps: Pick<MembersDeps, 'db' | 'members' | 'clock'>,
  session: ActiveSession,
  id: string,
): Promise<Date> {
  const platformId = memberTenant(session, 'manage-members', 'withdraw invitations');
  const now = deps.clock.now();
  const withdrawn = await deps.db.transaction((tx) => deps.members.withdraw(tx, platformId, id, now));
  if (!withdrawn) {
    throw new AppError('NOT_FOUND', `No open invitation ${id} in your account`, { details: { id } });
  }
  return now;
}

/** An owner changes a member's role; the tenant keeps an owner. */
export async function changeMemberRole(
  deps: Pick<MembersDeps, 'db' | 'members'>,
  session: ActiveSession,
  accountId: string,
  role: MemberRole,
): Promise<Account> {
  const platformId = memberTenant(session, 'manage-members', 'change roles');
  return deps.db.transaction(async (tx) => {
    await deps.members.lockTenant(tx, platformId);
    const changed = await deps.members.setRole(tx, platformId, accountId, role);
    if (changed === null) throw notAMember(accountId);
    // Thrown inside the transaction: the change is rolled back.
    if ((await deps.members.countOwners(tx, platformId)) === 0) throw lastOwner();
    return changed;
  });
}

/**
 * An owner removes a member, or any member leaves: the account is deleted and its sessions end;
 * the tenant keeps an owner. What the member uploaded becomes the remover's (or, when leaving, the
 * oldest owner's).
 */
export async function removeMember(
  deps: Pick<MembersDeps, 'db' | 'members' | 'accounts' | 'clock'>,
  session: ActiveSession,
  accountId: string,
): Promise<Date> {
  const leaving = accountId === session.account.id;
  // Anyone may leave; removing another takes an owner.
  const platformId = memberTenant(session, leaving ? 'read' : 'manage-members', 'remove members');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await deps.members.lockTenant(tx, platformId);
    const people = await deps.accounts.listByPlatform(tx, platformId);
    const heir = leaving
      ? people.find((person) => person.memberRole === 'owner' && person.id !== accountId)
      : session.account;
    if (!(await deps.members.remove(tx, platformId, accountId, heir?.id ?? session.account.id))) {
      throw notAMember(accountId);
    }
    if ((await deps.members.countOwners(tx, platformId)) === 0) throw lastOwner();
  });
  return now;
}

const INVITATION_UNUSABLE = () =>
  new AppError('VALIDATION_ERROR', 'This invitation has expired, was withdrawn or was used already', {
    details: {
      fields: [{ field: 'token', message: 'expired, withdrawn or already used: ask for a new invitation' }],
    },
  });

/**
 * The invited person follows the link with a name and a password: the account joins the tenant
 * with the invitation's role and is signed in. The link proves the address, as a verification
 * link does. It works once; a refused password leaves it usable.
 */
export async function acceptInvitation(
  deps: MembersDeps,
  input: { token: string; name: string; password: string },
): Promise<StartedSession> {
  const tokenHash = hashMailToken(input.token);
  const open = await deps.members.findOpen(deps.db, tokenHash, deps.clock.now());
  if (open === null) throw INVITATION_UNUSABLE();
  assertAcceptablePassword(input.password, { email: open.email, name: input.name });
  // Hashed before the transaction: argon2 takes tens of milliseconds.
  const passwordHash = await deps.passwords.hash(input.password);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const invitation = await deps.members.accept(tx, tokenHash, now);
    if (invitation === null) throw INVITATION_UNUSABLE();
    await deps.members.lockTenant(tx, invitation.platformId);
    // A creator's people are creators, a platform's are platforms (what the dashboard shows them).
    const [first] = await deps.accounts.listByPlatform(tx, invitation.platformId);
    const account: Account = {
      id: newId('acct'),
      email: invitation.email,
      name: input.name,
      role: first?.role === 'creator' ? 'creator' : 'platform',
      platformId: invitation.platformId,
      memberRole: invitation.role,
      createdAt: now,
    };
    // The address signed up meanwhile: an account belongs to one tenant.
    if (!(await deps.accounts.insert(tx, account, passwordHash))) throw INVITATION_UNUSABLE();
    return startSession({ sessions: deps.sessions, clock: deps.clock }, tx, account);
  });
}
