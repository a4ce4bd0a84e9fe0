import type { MemberRole } from '@svc/contracts/gateway';
import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { Account } from '../domain/account';
import type { Invitation, MemberStore } from '../domain/members';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

const INVITATION_COLUMNS = [
  'id',
  'platformId',
  'email',
  'memberRole as role',
  'tokenHash',
  'invitedBy',
  'createdAt',
  'expiresAt',
] as const;

function open(q: Queryable, now: Date) {
  return db(q)
    .selectFrom('invitations')
    .select(INVITATION_COLUMNS)
    .where('acceptedAt', 'is', null)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', now);
}

/** Members (accounts of a tenant) and invitations, in the gateway's database (ADR 0034). */
export class MemberRepository implements MemberStore {
  async lockTenant(tx: Queryable, platformId: string): Promise<void> {
    await sql`SELECT 1 FROM platforms WHERE id = ${platformId} FOR UPDATE`.execute(db(tx));
  }

  async setRole(
    tx: Queryable,
    platformId: string,
    accountId: string,
    role: MemberRole,
  ): Promise<Account | null> {
    const row = await db(tx)
      .updateTable('accounts')
      .set({ memberRole: role })
      .where('id', '=', accountId)
      .where('platformId', '=', platformId)
      .returning(['id', 'email', 'name', 'role', 'platformId', 'memberRole', 'createdAt'])
      .executeTakeFirst();
    return row ?? null;
  }

  async remove(tx: Queryable, platformId: string, accountId: string, heirId: string): Promise<boolean> {
    await db(tx)
      .updateTable('dashboardUploads')
      .set({ accountId: heirId })
      .where('accountId', '=', accountId)
      .where('platformId', '=', platformId)
      .execute();
    const result = await db(tx)
      .deleteFrom('accounts')
      .where('id', '=', accountId)
      .where('platformId', '=', platformId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async countOwners(tx: Queryable, platformId: string): Promise<number> {
    const row = await db(tx)
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<string>().as('owners'))
      .where('platformId', '=', platformId)
      .where('memberRole', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.owners);
  }

  async insertInvitation(tx: Queryable, invitation: Invitation): Promise<void> {
    const { role, ...rest } = invitation;
    await db(tx)
      .insertInto('invitations')
      .values({ ...rest, memberRole: role })
      .execute();
  }

  async withdrawOpenFor(tx: Queryable, platformId: string, email: string, at: Date): Promise<void> {
    await db(tx)
      .updateTable('invitations')
      .set({ revokedAt: at })
      .where('platformId', '=', platformId)
      .where('email', '=', email)
      .where('acceptedAt', 'is', null)
      .where('revokedAt', 'is', null)
      .execute();
  }

  async withdraw(tx: Queryable, platformId: string, id: string, at: Date): Promise<boolean> {
    const result = await db(tx)
      .updateTable('invitations')
      .set({ revokedAt: at })
      .where('id', '=', id)
      .where('platformId', '=', platformId)
      .where('acceptedAt', 'is', null)
      .where('revokedAt', 'is', null)
      .where('expiresAt', '>', at)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async listOpen(q: Queryable, platformId: string, now: Date): Promise<Invitation[]> {
    return open(q, now)
      .where('platformId', '=', platformId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async findOpen(q: Queryable, tokenHash: string, now: Date): Promise<Invitation | null> {
    return (await open(q, now).where('tokenHash', '=', tokenHash).executeTakeFirst()) ?? null;
  }

  async accept(tx: Queryable, tokenHash: string, now: Date): Promise<Invitation | null> {
    const row = await db(tx)
      .updateTable('invitations')
      .set({ acceptedAt: now })
      .where('tokenHash', '=', tokenHash)
      .where('acceptedAt', 'is', null)
      .where('revokedAt', 'is', null)
      .where('expiresAt', '>', now)
      .returning(INVITATION_COLUMNS)
      .executeTakeFirst();
    return row ?? null;
  }

  async purge(q: Queryable, before: Date): Promise<number> {
    const result = await db(q)
      .deleteFrom('invitations')
      .where((eb) =>
        eb.or([eb('expiresAt', '<', before), eb('revokedAt', '<', before), eb('acceptedAt', '<', before)]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
