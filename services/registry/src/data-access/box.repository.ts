import { jsonb, kyselyOn, pageOf, type Queryable } from '@svc/storage';
import type { Box, LogEntryRef, Policy } from '../domain/box';
import type { ClaimStatus } from '../domain/claim';
import type { BoxStore, Page } from '../domain/ports';
import type { DB } from './db.generated';

import { nameKeysContain } from './name-keys';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Boxes with the identity name and the claim's status, from the claims table. */
function boxesWithClaim(q: Queryable) {
  return db(q)
    .selectFrom('boxes as b')
    .innerJoin('claims as c', 'c.id', 'b.claimId')
    .select([
      'b.id',
      'b.claimId',
      'b.ownerPlatformId',
      'b.policy',
      'b.enforcement',
      'b.policyConfig',
      'b.status',
      'b.createdAt',
      'b.updatedAt',
      'c.name as identityName',
      'c.status as claimStatus',
      'b.logEntryIndex',
      'b.logEntryLeafHash',
    ]);
}

type BoxRow = Awaited<ReturnType<ReturnType<typeof boxesWithClaim>['executeTakeFirstOrThrow']>>;

function toBox({ logEntryIndex, logEntryLeafHash, ...row }: BoxRow): Box & { claimStatus: ClaimStatus } {
  const logEntry =
    logEntryIndex === null || logEntryLeafHash === null
      ? null
      : { index: Number(logEntryIndex), leafHash: logEntryLeafHash };
  return { ...row, logEntry };
}

/** Boxes; the identity name and the claim's status come from the claims table. */
export class BoxRepository implements BoxStore {
  async insert(tx: Queryable, box: Box): Promise<boolean> {
    const inserted = await db(tx)
      .insertInto('boxes')
      .values({
        id: box.id,
        claimId: box.claimId,
        ownerPlatformId: box.ownerPlatformId,
        policy: box.policy,
        enforcement: box.enforcement,
        policyConfig: jsonb(box.policyConfig),
        status: box.status,
        createdAt: box.createdAt,
        updatedAt: box.updatedAt,
      })
      .onConflict((conflict) => conflict.column('claimId').doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async update(tx: Queryable, box: Box): Promise<void> {
    await db(tx)
      .updateTable('boxes')
      .set({
        policy: box.policy,
        enforcement: box.enforcement,
        policyConfig: jsonb(box.policyConfig),
        updatedAt: box.updatedAt,
      })
      .where('id', '=', box.id)
      .execute();
  }

  async find(
    q: Queryable,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<(Box & { claimStatus: ClaimStatus }) | null> {
    const row = await boxesWithClaim(q)
      .where('b.id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate('b'))
      .executeTakeFirst();
    return row === undefined ? null : toBox(row);
  }

  async list(
    q: Queryable,
    filter: Page & {
      viewerPlatformId: string;
      owner?: 'me' | undefined;
      policy?: Policy | undefined;
      claimId?: string | undefined;
      q?: string | undefined;
    },
  ): Promise<{ items: Box[]; total: number }> {
    let matching = boxesWithClaim(q).where((eb) =>
      eb.or([eb('b.ownerPlatformId', '=', filter.viewerPlatformId), eb('c.status', '=', 'verified')]),
    );
    if (filter.owner === 'me') matching = matching.where('b.ownerPlatformId', '=', filter.viewerPlatformId);
    if (filter.policy !== undefined) matching = matching.where('b.policy', '=', filter.policy);
    if (filter.claimId !== undefined) matching = matching.where('b.claimId', '=', filter.claimId);
    if (filter.q !== undefined) matching = matching.where(nameKeysContain('c.name_keys', filter.q));
    const { rows, total } = await pageOf(
      matching.orderBy('b.createdAt', 'desc').orderBy('b.seq', 'desc'),
      filter,
    );
    return { items: rows.map(toBox), total };
  }

  async delete(tx: Queryable, id: string): Promise<void> {
    await db(tx).deleteFrom('boxes').where('id', '=', id).execute();
  }

  async recordLogEntry(tx: Queryable, id: string, entry: LogEntryRef): Promise<void> {
    await db(tx)
      .updateTable('boxes')
      .set({ logEntryIndex: entry.index, logEntryLeafHash: entry.leafHash })
      .where('id', '=', id)
      .where((w) => w.or([w('logEntryIndex', 'is', null), w('logEntryIndex', '<', entry.index)]))
      .execute();
  }
}
