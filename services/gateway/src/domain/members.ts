import { INVITATION_TTL_DAYS, type MemberRole } from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { Account } from './account';
import type { ActiveSession } from './account-ports';

// Members of a tenant and what each role may do (issue #32, "Platform members"; docs/adr/0034).

/** What a call of a member's session does, as far as roles are concerned. */
export type MemberAction = 'read' | 'write' | 'manage-members';

const ROLE_ALLOWS: Record<MemberRole, ReadonlySet<MemberAction>> = {
  owner: new Set(['read', 'write', 'manage-members']),
  developer: new Set(['read', 'write']),
  read_only: new Set(['read']),
};

export function memberMay(role: MemberRole, action: MemberAction): boolean {
  return ROLE_ALLOWS[role].has(action);
}

const ROLE_NAMES: Record<MemberRole, string> = {
  owner: 'owner',
  developer: 'developer',
  read_only: 'read-only member',
};

/**
 * The tenant a dashboard session acts for, when its member role allows `action` (`doing` names it
 * in the refusal); 403 otherwise, and for the operator's session, which has no tenant.
 */
export function memberTenant(session: ActiveSession, action: MemberAction, doing: string): string {
  const { platformId, memberRole: role } = session.account;
  if (platformId === null) {
    throw new AppError('FORBIDDEN', `The operator has no account to ${doing} in`, {
      details: 'Sign in as a creator or a platform.',
    });
  }
  if (memberMay(role, action)) return platformId;
  const needed = action === 'manage-members' ? 'an owner' : 'an owner or a developer';
  throw new AppError('FORBIDDEN', `Your role (${ROLE_NAMES[role]}) cannot ${doing}`, {
    details: { memberRole: role, reason: `Only ${needed} can; ask an owner of your account.` },
  });
}

/** An invitation to join a tenant, as stored (its token only as a hash). */
export interface Invitation {
  id: string;
  platformId: string;
  email: string;
  role: MemberRole;
  tokenHash: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export const INVITATION_TTL_MS = INVITATION_TTL_DAYS * 24 * 60 * 60 * 1000;

/** The members and invitations of tenants, in the gateway's database. */
export interface MemberStore {
  /** Locks the tenant's row until the transaction ends: member changes of one tenant run one at a time. */
  lockTenant(tx: Queryable, platformId: string): Promise<void>;
  /** Sets the role of the tenant's member; the account after, or null when it is no member of it. */
  setRole(tx: Queryable, platformId: string, accountId: string, role: MemberRole): Promise<Account | null>;
  /**
   * Deletes the tenant's member (its sessions and security rows go with it); its uploads become
   * `heirId`'s, so that no claim loses a picture. False when it is no member of the tenant.
   */
  remove(tx: Queryable, platformId: string, accountId: string, heirId: string): Promise<boolean>;
  countOwners(tx: Queryable, platformId: string): Promise<number>;
  insertInvitation(tx: Queryable, invitation: Invitation): Promise<void>;
  /** Withdraws the address's open invitation to the tenant, if any. */
  withdrawOpenFor(tx: Queryable, platformId: string, email: string, at: Date): Promise<void>;
  /** Withdraws one open invitation; false when the tenant has no such open invitation. */
  withdraw(tx: Queryable, platformId: string, id: string, at: Date): Promise<boolean>;
  /** Open invitations (neither accepted, withdrawn nor expired at `now`), newest first. */
  listOpen(q: Queryable, platformId: string, now: Date): Promise<Invitation[]>;
  /** The open, unexpired invitation of this token hash; null when none. */
  findOpen(q: Queryable, tokenHash: string, now: Date): Promise<Invitation | null>;
  /** Drops invitations that expired, were withdrawn or were accepted before `before`; how many. */
  purge(q: Queryable, before: Date): Promise<number>;
  /** Marks the open, unexpired invitation of this token hash accepted, and returns it; null when none. */
  accept(tx: Queryable, tokenHash: string, now: Date): Promise<Invitation | null>;
}
