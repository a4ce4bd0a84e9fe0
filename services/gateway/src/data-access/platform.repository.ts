import { kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { Limits, Plan } from '../domain/plans';
import type { Platform, PlatformKind, PlatformStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

function platforms(q: Queryable) {
  return db(q).selectFrom('platforms').selectAll();
}

type PlatformRow = Awaited<ReturnType<ReturnType<typeof platforms>['executeTakeFirstOrThrow']>>;

/** The domain's rule for a platform's limits: its plan's, or the stored ones agreed for enterprise. */
export type LimitsRule = (plan: Plan, stored: Limits | null) => Limits;

/**
 * Platforms in the gateway's database. The limits a platform answers with come from the domain's
 * rule, handed in where the gateway is wired (data access runs no domain code of its own).
 */
export class PlatformRepository implements PlatformStore {
  constructor(private readonly limitsOf: LimitsRule) {}

  // The one mapping left: the stored pair of columns becomes the platform's limits.
  private toPlatform = ({ perMinute, perDay, ...row }: PlatformRow): Platform => {
    const stored = perMinute === null || perDay === null ? null : { perMinute, perDay };
    return { ...row, limits: this.limitsOf(row.plan, stored) };
  };

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
    return row === undefined ? null : this.toPlatform(row);
  }

  async list(
    q: Queryable,
    filter: {
      limit: number;
      offset: number;
      kind?: PlatformKind | undefined;
      q?: string | undefined;
      ids?: readonly string[] | undefined;
    },
  ): Promise<{ items: { platform: Platform; kind: PlatformKind }[]; total: number }> {
    // A creator's tenant is the one its creator account signed up with (ADR 0024).
    const isCreator = sql<boolean>`EXISTS (SELECT 1 FROM accounts a WHERE a.platform_id = platforms.id AND a.role = 'creator')`;
    const query = db(q)
      .selectFrom('platforms')
      .selectAll()
      .select(isCreator.as('isCreator'))
      .$if(filter.kind === 'creator', (qb) => qb.where(isCreator))
      .$if(filter.kind === 'platform', (qb) => qb.where((eb) => eb.not(isCreator)))
      .$if(filter.ids !== undefined, (qb) => qb.where('id', 'in', [...(filter.ids ?? [])]))
      .$if(filter.q !== undefined, (qb) =>
        qb.where('name', 'ilike', `%${(filter.q ?? '').replace(/[\\%_]/g, (c) => `\\${c}`)}%`),
      )
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc');
    const { rows, total } = await pageOf(query, filter);
    return {
      items: rows.map(({ isCreator: creator, ...row }) => ({
        platform: this.toPlatform(row),
        kind: creator === true ? 'creator' : 'platform',
      })),
      total,
    };
  }

  async changePlan(tx: Queryable, id: string, plan: Plan, limits: Limits | null): Promise<boolean> {
    const result = await db(tx)
      .updateTable('platforms')
      .set({ plan, perMinute: limits?.perMinute ?? null, perDay: limits?.perDay ?? null })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
