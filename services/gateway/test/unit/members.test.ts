import { ManualClock } from '@svc/clock';
import type { MemberRole } from '@svc/contracts/gateway';
import type { Queryable } from '@svc/ports';
import type { Account } from '../../src/domain/account';
import { claimConflictMail, hashMailToken, type OutgoingMail } from '../../src/domain/account-mail';
import {
  acceptInvitation,
  changeMemberRole,
  inviteMember,
  listMembers,
  removeMember,
  withdrawInvitation,
  type MembersDeps,
} from '../../src/domain/manage-members.use-case';
import { memberMay, memberTenant, type Invitation, type MemberStore } from '../../src/domain/members';
import type { ActiveSession } from '../../src/domain/account-ports';

// The member rules (ADR 0034) on in-memory stores; the gateway's integration test runs them on
// PostgreSQL through HTTP.

const tx = {} as Queryable;
const LINKS = { baseUrl: 'https://svc.example' };

function world() {
  const clock = new ManualClock(new Date('2026-12-01T10:00:00Z'));
  const accounts = new Map<string, Account & { passwordHash: string }>();
  const invitations: (Invitation & { acceptedAt?: Date; revokedAt?: Date })[] = [];
  const mail: OutgoingMail[] = [];
  const open = (now: Date) =>
    invitations.filter((i) => i.acceptedAt === undefined && i.revokedAt === undefined && i.expiresAt > now);
  const members: MemberStore = {
    lockTenant: async () => undefined,
    setRole: async (_tx, platformId, accountId, role) => {
      const found = accounts.get(accountId);
      if (found === undefined || found.platformId !== platformId) return null;
      found.memberRole = role;
      return found;
    },
    remove: async (_tx, platformId, accountId) => {
      const found = accounts.get(accountId);
      if (found === undefined || found.platformId !== platformId) return false;
      accounts.delete(accountId);
      return true;
    },
    countOwners: async (_tx, platformId) =>
      [...accounts.values()].filter((a) => a.platformId === platformId && a.memberRole === 'owner').length,
    insertInvitation: async (_tx, invitation) => void invitations.push({ ...invitation }),
    withdrawOpenFor: async (_tx, platformId, email, at) => {
      for (const i of open(at)) if (i.platformId === platformId && i.email === email) i.revokedAt = at;
    },
    withdraw: async (_tx, platformId, id, at) => {
      const found = open(at).find((i) => i.id === id && i.platformId === platformId);
      if (found === undefined) return false;
      found.revokedAt = at;
      return true;
    },
    listOpen: async (_q, platformId, now) => open(now).filter((i) => i.platformId === platformId),
    findOpen: async (_q, tokenHash, now) => open(now).find((i) => i.tokenHash === tokenHash) ?? null,
    purge: async () => 0,
    accept: async (_tx, tokenHash, now) => {
      const found = open(now).find((i) => i.tokenHash === tokenHash);
      if (found === undefined) return null;
      found.acceptedAt = now;
      return found;
    },
  };
  const deps = {
    db: { transaction: async <T>(fn: (q: Queryable) => Promise<T>) => fn(tx) },
    clock,
    members,
    accounts: {
      insert: async (_tx: Queryable, account: Account, passwordHash: string) => {
        if ([...accounts.values()].some((a) => a.email === account.email)) return false;
        accounts.set(account.id, { ...account, passwordHash });
        return true;
      },
      findByEmail: async (_q: Queryable, email: string) => {
        const found = [...accounts.values()].find((a) => a.email === email);
        return found === undefined ? null : { account: found, passwordHash: found.passwordHash };
      },
      find: async (_q: Queryable, id: string) => accounts.get(id) ?? null,
      listByPlatform: async (_q: Queryable, platformId: string) =>
        [...accounts.values()].filter((a) => a.platformId === platformId),
    },
    platforms: {
      find: async (_q: Queryable, id: string) => ({ id, name: 'Avatar Studio' }),
    },
    sessions: { insert: async () => undefined },
    mailOutbox: { enqueue: async (_tx: Queryable, m: OutgoingMail) => void mail.push(m) },
    passwords: { hash: async (password: string) => `hashed:${password}` },
    mailQueued: () => undefined,
  } as unknown as MembersDeps;
  const person = (id: string, role: MemberRole, platformId = 'plat_a'): Account => {
    const account: Account = {
      id,
      email: `${id}@example.com`,
      name: id,
      role: 'platform',
      platformId,
      memberRole: role,
      createdAt: clock.now(),
    };
    accounts.set(id, { ...account, passwordHash: 'x' });
    return account;
  };
  const sessionOf = (account: Account) => ({ account }) as ActiveSession;
  return { deps, clock, accounts, invitations, mail, person, sessionOf };
}

describe('member roles', () => {
  it('when each role asks for each kind of action, then only what the role allows passes, and a refusal names the role', () => {
    expect(
      (['owner', 'developer', 'read_only'] as const).map((role) =>
        (['read', 'write', 'manage-members'] as const).filter((action) => memberMay(role, action)),
      ),
    ).toEqual([['read', 'write', 'manage-members'], ['read', 'write'], ['read']]);
    const { person, sessionOf } = world();
    expect(() => memberTenant(sessionOf(person('ro', 'read_only')), 'write', 'issue API keys')).toThrow(
      'Your role (read-only member) cannot issue API keys',
    );
    expect(memberTenant(sessionOf(person('dev', 'developer')), 'write', 'x')).toBe('plat_a');
    // The operator's session has no tenant to act in.
    const operator = {
      account: { role: 'operator', platformId: null, memberRole: 'owner' },
    } as ActiveSession;
    expect(() => memberTenant(operator, 'read', 'list members')).toThrow(
      'The operator has no account to list members in',
    );
  });
});

describe('managing members', () => {
  it('when an owner invites, the invitee accepts once, and roles change, then the tenant always keeps an owner', async () => {
    const { deps, person, sessionOf, mail, accounts, clock } = world();
    const owner = sessionOf(person('owner', 'owner'));
    const invitation = await inviteMember(
      deps,
      owner,
      { email: 'new@example.com', role: 'developer' },
      LINKS,
    );
    expect(invitation).toMatchObject({ platformId: 'plat_a', role: 'developer', invitedBy: 'owner' });
    expect(mail.map((m) => m.subject)).toEqual(['You are invited to join Avatar Studio']);
    const token = /#token=([A-Za-z0-9_-]+)/.exec(mail[0]?.text ?? '')?.[1] ?? '';
    expect(hashMailToken(token)).toBe(invitation.tokenHash);
    expect((await listMembers(deps, owner)).invitations.map((i) => i.email)).toEqual(['new@example.com']);

    await expect(
      acceptInvitation(deps, { token, name: 'New', password: 'password1234' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const joined = await acceptInvitation(deps, { token, name: 'New', password: 'a long enough passphrase' });
    expect(joined.account).toMatchObject({
      platformId: 'plat_a',
      memberRole: 'developer',
      email: 'new@example.com',
    });
    await expect(
      acceptInvitation(deps, { token, name: 'New', password: 'a long enough passphrase' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });

    await expect(changeMemberRole(deps, owner, 'owner', 'developer')).rejects.toMatchObject({
      code: 'INVALID_STATE',
    });
    await expect(changeMemberRole(deps, owner, 'nobody', 'developer')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await changeMemberRole(deps, owner, joined.account.id, 'owner')).memberRole).toBe('owner');
    // The first owner leaves: what it uploaded passes to the other owner; the last may not leave.
    clock.advance(1000);
    await removeMember(deps, owner, 'owner');
    expect(accounts.has('owner')).toBe(false);
    await expect(removeMember(deps, sessionOf(joined.account), joined.account.id)).rejects.toMatchObject({
      code: 'INVALID_STATE',
    });
  });

  it('when a non-owner manages members, an address with an account is invited, or an invitation is withdrawn twice, then each is refused', async () => {
    const { deps, person, sessionOf } = world();
    const owner = sessionOf(person('owner', 'owner'));
    const developer = sessionOf(person('dev', 'developer'));
    person('elsewhere', 'owner', 'plat_b');
    await expect(
      inviteMember(deps, developer, { email: 'x@example.com', role: 'owner' }, LINKS),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(removeMember(deps, developer, 'owner')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      inviteMember(deps, owner, { email: 'elsewhere@example.com', role: 'developer' }, LINKS),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
    // Another tenant's member is no member here.
    await expect(removeMember(deps, owner, 'elsewhere')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const first = await inviteMember(deps, owner, { email: 'twice@example.com', role: 'developer' }, LINKS);
    const second = await inviteMember(deps, owner, { email: 'twice@example.com', role: 'read_only' }, LINKS);
    expect((await listMembers(deps, owner)).invitations.map((i) => i.id)).toEqual([second.id]);
    await expect(withdrawInvitation(deps, owner, first.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await withdrawInvitation(deps, owner, second.id);
    expect((await listMembers(deps, owner)).invitations).toEqual([]);
    const operator = { account: { role: 'operator', platformId: null } } as ActiveSession;
    await expect(listMembers(deps, operator)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('the mail of a claim conflict', () => {
  it('when another account claims a protected name, then the owner reads the names and a link to their claim, not who claims it', () => {
    const mail = claimConflictMail(LINKS, 'ada@example.com', 'Ada', {
      name: 'ada lovelace',
      existingName: 'Ada Lovelace',
      existingClaimId: 'claim_1',
      claimId: 'claim_2',
    });
    expect(mail.subject).toBe('Another account claims ada lovelace, a name you protect');
    expect(mail.text).toContain('https://svc.example/dashboard/claims/claim_1');
    expect(mail.text).toContain('(claim claim_2)');
  });
});
