import {
  fromRowJson,
  jsonb,
  kyselyOn,
  pageOf,
  rowJson,
  sql,
  type Queryable,
  type Selectable,
} from '@svc/storage';
import type { Avatar } from '../domain/avatar';
import type { ViolationFilter, ViolationStore } from '../domain/ports';
import type { Violation, ViolationStatus } from '../domain/violation';
import type { LogEntryRef } from '../domain/log-entry';
import { logEntryOf } from './log-entry';
import { avatarFromJson } from './avatar-row';
import type { Avatars, DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

type ViolationRow = Selectable<DB['violations']>;

// The one reshaping: the table keeps detection's answer in flat columns, the domain in `detection`
// (and `seq` is only for ordering).
function toViolation({
  seq: _seq,
  confidence,
  layer,
  classification,
  matchedVariations,
  imageMatchScore,
  parodyLikelihood,
  logEntryIndex,
  logEntryLeafHash,
  ...row
}: ViolationRow): Violation {
  return {
    ...row,
    detection: { confidence, layer, classification, matchedVariations, imageMatchScore, parodyLikelihood },
    logEntry: logEntryOf(logEntryIndex, logEntryLeafHash),
  };
}

/** Open: the violation still asks something of the platform. */
const OPEN: ViolationStatus[] = ['pending', 'appealed'];

/** Violations with their avatars (the avatar row as jsonb: both tables have `platform_id`, `seq`…). */
function casesWithAvatar(q: Queryable) {
  return db(q)
    .selectFrom('violations as v')
    .innerJoin('avatars as a', 'a.ref', 'v.avatarRef')
    .selectAll('v')
    .select(rowJson<Selectable<Avatars>>('a').as('avatar'));
}

function toCase({
  avatar,
  ...row
}: ViolationRow & { avatar: Parameters<typeof fromRowJson<Selectable<Avatars>>>[0] }) {
  return { violation: toViolation(row), avatar: avatarFromJson(fromRowJson(avatar)) };
}

/** Violations. */
export class ViolationRepository implements ViolationStore {
  async insert(tx: Queryable, v: Violation): Promise<void> {
    await db(tx)
      .insertInto('violations')
      .values({
        id: v.id,
        platformId: v.platformId,
        avatarRef: v.avatarRef,
        boxId: v.boxId,
        claimId: v.claimId,
        identityName: v.identityName,
        boxOwnerPlatformId: v.boxOwnerPlatformId,
        policy: v.policy,
        enforcement: v.enforcement,
        policyConfig: jsonb(v.policyConfig),
        status: v.status,
        severity: v.severity,
        confidence: v.detection.confidence,
        layer: v.detection.layer,
        classification: v.detection.classification,
        matchedVariations: jsonb(v.detection.matchedVariations),
        imageMatchScore: v.detection.imageMatchScore,
        parodyLikelihood: v.detection.parodyLikelihood,
        detectedAt: v.detectedAt,
        gracePeriodId: v.gracePeriodId,
        resolution: v.resolution,
        resolutionNotes: v.resolutionNotes,
        licenseId: v.licenseId,
        resolvedAt: v.resolvedAt,
        enforcedAt: v.enforcedAt,
        resolvedBy: v.resolvedBy,
        resolutionEvidence: v.resolutionEvidence === null ? null : jsonb(v.resolutionEvidence),
        detectedAvatar: v.detectedAvatar === null ? null : jsonb(v.detectedAvatar),
      })
      .execute();
  }

  async update(tx: Queryable, v: Violation): Promise<void> {
    await db(tx)
      .updateTable('violations')
      .set({
        status: v.status,
        resolution: v.resolution,
        resolutionNotes: v.resolutionNotes,
        licenseId: v.licenseId,
        resolvedAt: v.resolvedAt,
        enforcedAt: v.enforcedAt,
        resolvedBy: v.resolvedBy,
        resolutionEvidence: v.resolutionEvidence === null ? null : jsonb(v.resolutionEvidence),
      })
      .where('id', '=', v.id)
      .execute();
  }

  /** Where the violation's newest logged decision sits; an older entry never replaces a newer one. */
  async recordLogEntry(tx: Queryable, id: string, entry: LogEntryRef): Promise<void> {
    await db(tx)
      .updateTable('violations')
      .set({ logEntryIndex: entry.index, logEntryLeafHash: entry.leafHash })
      .where('id', '=', id)
      .where((w) => w.or([w('logEntryIndex', 'is', null), w('logEntryIndex', '<', entry.index)]))
      .execute();
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<Violation | null> {
    const row = await db(q)
      .selectFrom('violations')
      .selectAll()
      .where('id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row === undefined ? null : toViolation(row);
  }

  async findMany(q: Queryable, ids: string[]): Promise<Map<string, Violation>> {
    const found = new Map<string, Violation>();
    if (ids.length === 0) return found;
    const rows = await db(q)
      .selectFrom('violations')
      .selectAll()
      .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
      .execute();
    for (const row of rows) found.set(row.id, toViolation(row));
    return found;
  }

  async openForAvatar(q: Queryable, avatarRef: string): Promise<Violation[]> {
    const rows = await db(q)
      .selectFrom('violations')
      .selectAll()
      .where('avatarRef', '=', avatarRef)
      .where('status', 'in', OPEN)
      .orderBy('seq')
      .execute();
    return rows.map(toViolation);
  }

  async openIdsForAvatars(q: Queryable, avatarRefs: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (avatarRefs.length === 0) return found;
    const rows = await db(q)
      .selectFrom('violations')
      .select(['id', 'avatarRef'])
      .where((eb) => eb('avatarRef', '=', eb.fn.any(eb.val(avatarRefs))))
      .where('status', 'in', OPEN)
      .orderBy('seq')
      .execute();
    for (const row of rows) found.set(row.avatarRef, [...(found.get(row.avatarRef) ?? []), row.id]);
    return found;
  }

  async openIdsOnBox(q: Queryable, boxId: string, platformId?: string): Promise<string[]> {
    let open = db(q)
      .selectFrom('violations')
      .select('id')
      .where('boxId', '=', boxId)
      .where('status', 'in', OPEN);
    if (platformId !== undefined) open = open.where('platformId', '=', platformId);
    const rows = await open.orderBy('seq').execute();
    return rows.map((row) => row.id);
  }

  async list(q: Queryable, filter: ViolationFilter): Promise<{ items: Violation[]; total: number }> {
    let matching = db(q).selectFrom('violations').selectAll().where('platformId', '=', filter.platformId);
    if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
    if (filter.boxId !== undefined) matching = matching.where('boxId', '=', filter.boxId);
    if (filter.severity !== undefined) matching = matching.where('severity', '=', filter.severity);
    const { rows, total } = await pageOf(
      matching.orderBy('detectedAt', 'desc').orderBy('seq', 'desc'),
      filter,
    );
    return { items: rows.map(toViolation), total };
  }

  async listOnBox(
    q: Queryable,
    filter: { boxId: string; status?: ViolationStatus | undefined; limit: number; offset: number },
  ): Promise<{ items: Violation[]; total: number }> {
    let matching = db(q).selectFrom('violations').selectAll().where('boxId', '=', filter.boxId);
    if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
    const { rows, total } = await pageOf(
      matching.orderBy('detectedAt', 'desc').orderBy('seq', 'desc'),
      filter,
    );
    return { items: rows.map(toViolation), total };
  }

  async casesOf(
    q: Queryable,
    violationIds: string[],
  ): Promise<Map<string, { violation: Violation; avatar: Avatar }>> {
    const found = new Map<string, { violation: Violation; avatar: Avatar }>();
    if (violationIds.length === 0) return found;
    const rows = await casesWithAvatar(q)
      .where((eb) => eb('v.id', '=', eb.fn.any(eb.val(violationIds))))
      .execute();
    for (const row of rows) found.set(row.id, toCase(row));
    return found;
  }

  async markEnforced(tx: Queryable, violations: Violation[]): Promise<void> {
    if (violations.length === 0) return;
    const recordset = JSON.stringify(
      violations.map((v) => ({ id: v.id, status: v.status, enforced_at: v.enforcedAt })),
    );
    await db(tx)
      .updateTable('violations')
      .from(
        sql<{
          id: string;
          status: ViolationStatus;
          enforcedAt: Date | null;
        }>`jsonb_to_recordset(${recordset}::jsonb)`.as<'e'>(
          sql`e(id text, status text, enforced_at timestamptz)`,
        ),
      )
      .set((eb) => ({ status: eb.ref('e.status'), enforcedAt: eb.ref('e.enforcedAt') }))
      .whereRef('violations.id', '=', 'e.id')
      .execute();
  }

  async takedowns(
    q: Queryable,
    platformId: string,
    limit: number,
  ): Promise<{ violation: Violation; avatar: Avatar }[]> {
    const rows = await casesWithAvatar(q)
      .where('v.platformId', '=', platformId)
      .where('v.status', '=', 'enforced')
      .where('a.deletedAt', 'is', null)
      .orderBy('v.enforcedAt', 'desc')
      .orderBy('v.seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toCase);
  }
}
