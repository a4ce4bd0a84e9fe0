import { kyselyOn, type Queryable } from '@svc/storage';
import type { AccountSecurityStore, SecondFactorState } from '../domain/account-ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Second factors, recovery codes (hashes), known devices (hashes) and password changes. */
export class AccountSecurityRepository implements AccountSecurityStore {
  async find(q: Queryable, accountId: string): Promise<SecondFactorState> {
    const row = await db(q)
      .selectFrom('accounts')
      .select((eb) => [
        'totpSecret',
        'totpPendingSecret',
        'totpLastStep',
        eb
          .selectFrom('recoveryCodes')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('recoveryCodes.accountId', '=', 'accounts.id')
          .where('recoveryCodes.usedAt', 'is', null)
          .as('recoveryCodesLeft'),
      ])
      .where('id', '=', accountId)
      .executeTakeFirst();
    return {
      totpSecret: row?.totpSecret ?? null,
      totpPendingSecret: row?.totpPendingSecret ?? null,
      totpLastStep:
        row?.totpLastStep === null || row?.totpLastStep === undefined ? null : Number(row.totpLastStep),
      recoveryCodesLeft: Number(row?.recoveryCodesLeft ?? 0),
    };
  }

  async setPendingTotp(q: Queryable, accountId: string, secret: string | null): Promise<void> {
    await db(q)
      .updateTable('accounts')
      .set({ totpPendingSecret: secret })
      .where('id', '=', accountId)
      .execute();
  }

  async confirmTotp(
    q: Queryable,
    accountId: string,
    secret: string,
    step: number,
    recoveryCodeHashes: string[],
  ): Promise<void> {
    await db(q)
      .updateTable('accounts')
      .set({ totpSecret: secret, totpPendingSecret: null, totpLastStep: step })
      .where('id', '=', accountId)
      .execute();
    await db(q).deleteFrom('recoveryCodes').where('accountId', '=', accountId).execute();
    if (recoveryCodeHashes.length > 0) {
      await db(q)
        .insertInto('recoveryCodes')
        .values(recoveryCodeHashes.map((codeHash) => ({ accountId, codeHash })))
        .execute();
    }
  }

  async disableTotp(q: Queryable, accountId: string): Promise<void> {
    await db(q)
      .updateTable('accounts')
      .set({ totpSecret: null, totpPendingSecret: null, totpLastStep: null })
      .where('id', '=', accountId)
      .execute();
    await db(q).deleteFrom('recoveryCodes').where('accountId', '=', accountId).execute();
  }

  async acceptTotpStep(q: Queryable, accountId: string, step: number): Promise<boolean> {
    // One statement: two parallel sign-ins with the same code cannot both pass.
    const row = await db(q)
      .updateTable('accounts')
      .set({ totpLastStep: step })
      .where('id', '=', accountId)
      .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async useRecoveryCode(q: Queryable, accountId: string, codeHash: string, at: Date): Promise<boolean> {
    const row = await db(q)
      .updateTable('recoveryCodes')
      .set({ usedAt: at })
      .where('accountId', '=', accountId)
      .where('codeHash', '=', codeHash)
      .where('usedAt', 'is', null)
      .returning('codeHash')
      .executeTakeFirst();
    return row !== undefined;
  }

  async setPasswordHash(q: Queryable, accountId: string, passwordHash: string): Promise<void> {
    await db(q).updateTable('accounts').set({ passwordHash }).where('id', '=', accountId).execute();
  }

  async rememberDevice(q: Queryable, tokenHash: string, accountId: string, at: Date): Promise<void> {
    await db(q)
      .insertInto('knownDevices')
      .values({ tokenHash, accountId, createdAt: at })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  async isKnownDevice(q: Queryable, tokenHash: string, accountId: string): Promise<boolean> {
    const row = await db(q)
      .selectFrom('knownDevices')
      .select('tokenHash')
      .where('tokenHash', '=', tokenHash)
      .where('accountId', '=', accountId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
