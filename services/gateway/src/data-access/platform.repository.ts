import { selectPage, type Queryable } from '@svc/storage';
import type { Platform, PlatformStore } from '../domain/ports';
import { limitsFor, type Plan } from '../domain/plans';

interface PlatformRow {
  id: string;
  name: string;
  plan: Plan;
  domain: string | null;
  per_minute: number | null;
  per_day: number | null;
  created_at: Date;
}

function toPlatform(row: PlatformRow): Platform {
  const stored =
    row.per_minute === null || row.per_day === null
      ? null
      : { perMinute: row.per_minute, perDay: row.per_day };
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    domain: row.domain,
    limits: limitsFor(row.plan, stored),
    createdAt: new Date(row.created_at),
  };
}

/** Platforms in the gateway's database. */
export class PlatformRepository implements PlatformStore {
  constructor(private readonly db: Queryable) {}

  async insert(platform: Platform): Promise<void> {
    const custom = platform.plan === 'enterprise';
    await this.db.query(
      `INSERT INTO platforms (id, name, plan, domain, per_minute, per_day, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        platform.id,
        platform.name,
        platform.plan,
        platform.domain,
        custom ? platform.limits.perMinute : null,
        custom ? platform.limits.perDay : null,
        platform.createdAt,
      ],
    );
  }

  async find(id: string): Promise<Platform | null> {
    const { rows } = await this.db.query<PlatformRow>('SELECT * FROM platforms WHERE id = $1', [id]);
    const row = rows[0];
    return row === undefined ? null : toPlatform(row);
  }

  async list(limit: number, offset: number): Promise<{ items: Platform[]; total: number }> {
    const { rows, total } = await selectPage<PlatformRow>(this.db, {
      select: '*',
      from: 'platforms',
      orderBy: 'created_at DESC, id DESC',
      limit,
      offset,
    });
    return { items: rows.map(toPlatform), total };
  }
}
