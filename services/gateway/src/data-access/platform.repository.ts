import { kyselyOn, pageOf, type Queryable } from '@svc/storage';
import type { Platform, PlatformStore } from '../domain/ports';
import { limitsFor } from '../domain/plans';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

function platforms(q: Queryable) {
  return db(q).selectFrom('platforms').selectAll();
}

type PlatformRow = Awaited<ReturnType<ReturnType<typeof platforms>['executeTakeFirstOrThrow']>>;

// The one mapping left: a platform's limits are its plan's, or the stored ones agreed for enterprise.
function toPlatform({ perMinute, perDay, ...row }: PlatformRow): Platform {
  const stored = perMinute === null || perDay === null ? null : { perMinute, perDay };
  return { ...row, limits: limitsFor(row.plan, stored) };
}

/** Platforms in the gateway's database. */
export class PlatformRepository implements PlatformStore {
  async insert(tx: Queryable, platform: Platform): Promise<void> {
    const custom = platform.plan === 'enterprise';
    await db(tx)
      .insertInto('platforms')
      .values({
        id: platform.id,
        name: platform.name,
        plan: platform.plan,
        domain: platform.domain,
        perMinute: custom ? platform.limits.perMinute : null,
        perDay: custom ? platform.limits.perDay : null,
        createdAt: platform.createdAt,
      })
      .execute();
  }

  async find(q: Queryable, id: string): Promise<Platform | null> {
    const row = await platforms(q).where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : toPlatform(row);
  }

  async list(q: Queryable, limit: number, offset: number): Promise<{ items: Platform[]; total: number }> {
    const { rows, total } = await pageOf(platforms(q).orderBy('createdAt', 'desc').orderBy('id', 'desc'), {
      limit,
      offset,
    });
    return { items: rows.map(toPlatform), total };
  }
}
