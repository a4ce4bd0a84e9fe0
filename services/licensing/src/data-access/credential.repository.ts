import type { JWK } from 'jose';
import { jsonb, kyselyOn, sql, type Queryable } from '@svc/storage';
import type { CredentialStore, StatusEntry, StoredCredential } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** License credentials and status list entries (migration 0013). */
export class CredentialRepository implements CredentialStore {
  async statusEntryOf(tx: Queryable, licenseId: string): Promise<StatusEntry> {
    // One round trip: the license's entry, or a new one from list 1's sequence (never a value
    // drawn and wasted for a license that has one). Past the 2^20th index nextval fails, and so
    // does the activation (ADR 0029).
    const { rows } = await tx.query<{ listId: number; idx: number }>(
      `WITH found AS (SELECT list_id, idx FROM license_status_entries WHERE license_id = $1),
       added AS (
         INSERT INTO license_status_entries (license_id, list_id, idx)
         SELECT $1, 1, nextval('status_list_1_idx_seq') WHERE NOT EXISTS (SELECT 1 FROM found)
         RETURNING list_id, idx
       )
       SELECT list_id AS "listId", idx FROM found UNION ALL SELECT list_id, idx FROM added`,
      // List 1 (STATUS_LIST_ID) and its sequence; list 2 comes with its own sequence (ADR 0029).
      [licenseId],
    );
    const row = rows[0];
    if (row === undefined) throw new Error(`no status entry allocated for ${licenseId}`);
    return { listId: Number(row.listId), idx: Number(row.idx) };
  }

  async insert(tx: Queryable, c: StoredCredential): Promise<void> {
    await db(tx)
      .insertInto('licenseCredentials')
      .values({
        licenseId: c.licenseId,
        kid: c.kid,
        credential: c.credential,
        issuedAt: c.issuedAt,
        expiresAt: c.expiresAt,
      })
      .execute();
  }

  async newest(q: Queryable, licenseId: string): Promise<StoredCredential | null> {
    const row = await db(q)
      .selectFrom('licenseCredentials')
      .select(['licenseId', 'kid', 'credential', 'issuedAt', 'expiresAt'])
      .where('licenseId', '=', licenseId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ?? null;
  }

  async invalidIndexes(q: Queryable, listId: number, now: Date): Promise<number[]> {
    const rows = await db(q)
      .selectFrom('licenseStatusEntries as e')
      .innerJoin('licenses as l', 'l.id', 'e.licenseId')
      .leftJoin('sandboxClocks as c', 'c.platformId', 'l.licenseePlatformId')
      // The licensee's clock, as the expiry job reads it (LicenseRepository.lockDue).
      .crossJoinLateral(
        sql<{ now: Date }>`(SELECT ${now.toISOString()}::timestamptz
          + COALESCE(${sql.ref('c.offsetMs')}, 0) * interval '1 millisecond' AS now)`.as('t'),
      )
      .select('e.idx')
      .where('e.listId', '=', listId)
      .where((eb) =>
        eb.or([
          eb('l.status', '<>', 'active'),
          eb.and([eb('l.cancelAt', 'is not', null), eb('l.cancelAt', '<=', eb.ref('t.now'))]),
          eb.and([eb('l.autoRenew', '=', false), eb('l.expiresAt', '<=', eb.ref('t.now'))]),
        ]),
      )
      .execute();
    return rows.map((r) => Number(r.idx));
  }
}

/** The generated signing key of a deployment without a configured one (sandbox only). */
export class GeneratedKeyRepository {
  /** Keeps `jwk` unless a key is stored already (another replica won), then returns the stored one. */
  async keep(q: Queryable, jwk: JWK & { kid: string }, now: Date): Promise<Record<string, unknown>> {
    await db(q)
      .insertInto('generatedSigningKeys')
      .values({ id: 1, kid: jwk.kid, privateJwk: jsonb(jwk), createdAt: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    const row = await db(q).selectFrom('generatedSigningKeys').select('privateJwk').executeTakeFirstOrThrow();
    return row.privateJwk;
  }

  async find(q: Queryable): Promise<Record<string, unknown> | null> {
    const row = await db(q).selectFrom('generatedSigningKeys').select('privateJwk').executeTakeFirst();
    return row === undefined ? null : row.privateJwk;
  }
}
