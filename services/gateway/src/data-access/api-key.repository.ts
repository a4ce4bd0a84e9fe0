import type { Database } from '@svc/storage';
import type { Environment } from '../domain/api-key';
import type { ApiKeyRecord, ApiKeyStore, NewApiKey } from '../domain/ports';

interface KeyRow {
  id: string;
  platform_id: string;
  environment: Environment;
  budget_id: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  replaced_by: string | null;
}

const COLUMNS = 'id, platform_id, environment, budget_id, created_at, expires_at, revoked_at, replaced_by';
const INSERT = `INSERT INTO api_keys (id, platform_id, environment, key_hash, budget_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)`;

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    platformId: row.platform_id,
    environment: row.environment,
    budgetId: row.budget_id,
    createdAt: new Date(row.created_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
    replacedBy: row.replaced_by,
  };
}

function insertParams(key: NewApiKey): unknown[] {
  return [key.id, key.platformId, key.environment, key.keyHash, key.budgetId, key.createdAt];
}

/** API keys (hashes only) in the gateway's database. */
export class ApiKeyRepository implements ApiKeyStore {
  constructor(private readonly db: Database) {}

  async insert(key: NewApiKey): Promise<void> {
    await this.db.query(INSERT, insertParams(key));
  }

  async find(id: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    const row = rows[0];
    return row === undefined ? null : toRecord(row);
  }

  async listForPlatform(platformId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE platform_id = $1 ORDER BY created_at DESC, id DESC`,
      [platformId],
    );
    return rows.map(toRecord);
  }

  rotate(oldId: string, successor: NewApiKey, expiresAt: Date): Promise<'ok' | 'not_found' | 'not_active'> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [
        oldId,
      ]);
      const old = rows[0];
      if (old === undefined) return 'not_found';
      // A key already rotated or revoked has a successor; rotate that one instead.
      if (old.revoked_at !== null || old.replaced_by !== null) return 'not_active';
      await tx.query(INSERT, insertParams({ ...successor, budgetId: old.budget_id }));
      await tx.query('UPDATE api_keys SET expires_at = $2, replaced_by = $3 WHERE id = $1', [
        oldId,
        expiresAt,
        successor.id,
      ]);
      return 'ok';
    });
  }

  revoke(oldId: string, successor: NewApiKey, now: Date): Promise<'ok' | 'not_found' | 'already_revoked'> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [
        oldId,
      ]);
      const old = rows[0];
      if (old === undefined) return 'not_found';
      if (old.revoked_at !== null) return 'already_revoked';
      await tx.query(INSERT, insertParams({ ...successor, budgetId: old.budget_id }));
      await tx.query(
        'UPDATE api_keys SET revoked_at = $2, replaced_by = coalesce(replaced_by, $3) WHERE id = $1',
        [oldId, now, successor.id],
      );
      return 'ok';
    });
  }
}
