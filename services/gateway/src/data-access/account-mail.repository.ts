import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type {
  AccountMailStore,
  MailOutboxStore,
  OutgoingMail,
  PendingSignUp,
  QueuedMail,
} from '../domain/account-mail';
import type { TransactionRunner } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Pending sign-ups and password-reset links (token hashes only). */
export class AccountMailRepository implements AccountMailStore {
  async savePendingSignUp(tx: Queryable, pending: PendingSignUp, tokenHash: string): Promise<void> {
    const row = { ...pending, tokenHash };
    await db(tx)
      .insertInto('pendingSignUps')
      .values(row)
      .onConflict((conflict) =>
        conflict.column('email').doUpdateSet({
          name: row.name,
          role: row.role,
          passwordHash: row.passwordHash,
          tokenHash: row.tokenHash,
          createdAt: row.createdAt,
          expiresAt: row.expiresAt,
        }),
      )
      .execute();
  }

  async takePendingSignUp(tx: Queryable, tokenHash: string, now: Date): Promise<PendingSignUp | null> {
    const row = await db(tx)
      .deleteFrom('pendingSignUps')
      .where('tokenHash', '=', tokenHash)
      .where('expiresAt', '>', now)
      .returning(['email', 'name', 'role', 'passwordHash', 'createdAt', 'expiresAt'])
      .executeTakeFirst();
    if (row === undefined) return null;
    return { ...row, role: row.role === 'platform' ? 'platform' : 'creator' };
  }

  async saveReset(
    tx: Queryable,
    reset: { tokenHash: string; accountId: string; createdAt: Date; expiresAt: Date },
  ): Promise<void> {
    await db(tx).insertInto('passwordResets').values(reset).execute();
  }

  async findReset(q: Queryable, tokenHash: string, now: Date): Promise<string | null> {
    const row = await db(q)
      .selectFrom('passwordResets')
      .select('accountId')
      .where('tokenHash', '=', tokenHash)
      .where('usedAt', 'is', null)
      .where('expiresAt', '>', now)
      .executeTakeFirst();
    return row?.accountId ?? null;
  }

  async useReset(tx: Queryable, tokenHash: string, now: Date): Promise<string | null> {
    const row = await db(tx)
      .updateTable('passwordResets')
      .set({ usedAt: now })
      .where('tokenHash', '=', tokenHash)
      .where('usedAt', 'is', null)
      .where('expiresAt', '>', now)
      .returning('accountId')
      .executeTakeFirst();
    return row?.accountId ?? null;
  }

  async setPasswordHash(tx: Queryable, accountId: string, passwordHash: string): Promise<void> {
    await db(tx).updateTable('accounts').set({ passwordHash }).where('id', '=', accountId).execute();
  }

  async endResetsOf(tx: Queryable, accountId: string, now: Date): Promise<void> {
    await db(tx)
      .updateTable('passwordResets')
      .set({ usedAt: now })
      .where('accountId', '=', accountId)
      .where('usedAt', 'is', null)
      .execute();
  }

  async purge(q: Queryable, before: Date): Promise<number> {
    const a = await db(q).deleteFrom('pendingSignUps').where('expiresAt', '<', before).executeTakeFirst();
    const b = await db(q).deleteFrom('passwordResets').where('expiresAt', '<', before).executeTakeFirst();
    const c = await db(q)
      .deleteFrom('mailOutbox')
      .where('sentAt', 'is not', null)
      .where('sentAt', '<', before)
      .executeTakeFirst();
    return Number(a.numDeletedRows) + Number(b.numDeletedRows) + Number(c.numDeletedRows);
  }
}

/** The mail outbox: rows written with the change they tell about, sent by the relay. */
export class MailOutboxRepository implements MailOutboxStore {
  async enqueue(tx: Queryable, mail: OutgoingMail & { id: string; createdAt: Date }): Promise<void> {
    await db(tx)
      .insertInto('mailOutbox')
      .values({
        id: mail.id,
        recipient: mail.to,
        subject: mail.subject,
        body: mail.text,
        createdAt: mail.createdAt,
        nextAttemptAt: mail.createdAt,
      })
      .execute();
  }

  async claimDue(q: TransactionRunner, now: Date, leaseMs: number, limit: number): Promise<QueuedMail[]> {
    return q.transaction(async (tx) => {
      const rows = await db(tx)
        .selectFrom('mailOutbox')
        .select(['id', 'recipient', 'subject', 'body', 'attempts'])
        .where('sentAt', 'is', null)
        .where('nextAttemptAt', '<=', now)
        .orderBy('nextAttemptAt')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (rows.length > 0) {
        await db(tx)
          .updateTable('mailOutbox')
          .set({ nextAttemptAt: new Date(now.getTime() + leaseMs) })
          .where(
            'id',
            'in',
            rows.map((row) => row.id),
          )
          .execute();
      }
      return rows.map((row) => ({
        id: row.id,
        to: row.recipient,
        subject: row.subject,
        text: row.body,
        attempts: row.attempts,
      }));
    });
  }

  async markSent(tx: Queryable, id: string, at: Date): Promise<void> {
    await db(tx)
      .updateTable('mailOutbox')
      .set({ sentAt: at, body: '', lastError: null, attempts: sql`attempts + 1` })
      .where('id', '=', id)
      .execute();
  }

  async markFailed(tx: Queryable, id: string, nextAttemptAt: Date, error: string): Promise<void> {
    await db(tx)
      .updateTable('mailOutbox')
      .set({ nextAttemptAt, lastError: error.slice(0, 500), attempts: sql`attempts + 1` })
      .where('id', '=', id)
      .execute();
  }

  async countUnsent(q: Queryable): Promise<number> {
    const row = await db(q)
      .selectFrom('mailOutbox')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('sentAt', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
