import { selectPage, type Queryable } from '@svc/storage';
import type { Avatar } from '../domain/avatar';
import type { ViolationFilter, ViolationStore } from '../domain/ports';
import type { AvatarSnapshot, ResolutionEvidence } from '../domain/resolution-check';
import type { Violation } from '../domain/violation';

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));
import { toAvatar, type AvatarRow } from './avatar.repository';
import { fromJson, isoOrNull, toDate, toDateOrNull, toNumber, toNumberOrNull } from '@svc/storage';

interface ViolationRow {
  id: string;
  platform_id: string;
  avatar_ref: string;
  box_id: string;
  claim_id: string;
  identity_name: string;
  box_owner_platform_id: string;
  policy: string;
  enforcement: string;
  policy_config: unknown;
  status: string;
  severity: string;
  confidence: unknown;
  layer: unknown;
  classification: string;
  matched_variations: unknown;
  image_match_score: unknown;
  parody_likelihood: unknown;
  detected_at: unknown;
  grace_period_id: string;
  resolution: string | null;
  resolution_notes: string | null;
  license_id: string | null;
  resolved_at: unknown;
  resolved_by: string | null;
  resolution_evidence: unknown;
  detected_avatar: unknown;
  enforced_at: unknown;
}

export function toViolation(row: ViolationRow): Violation {
  return {
    id: row.id,
    platformId: row.platform_id,
    avatarRef: row.avatar_ref,
    boxId: row.box_id,
    claimId: row.claim_id,
    identityName: row.identity_name,
    boxOwnerPlatformId: row.box_owner_platform_id,
    policy: row.policy as Violation['policy'],
    enforcement: row.enforcement as Violation['enforcement'],
    policyConfig: fromJson<Record<string, unknown>>(row.policy_config),
    status: row.status as Violation['status'],
    severity: row.severity as Violation['severity'],
    detection: {
      confidence: toNumber(row.confidence),
      layer: toNumber(row.layer),
      classification: row.classification as Violation['detection']['classification'],
      matchedVariations: fromJson<string[]>(row.matched_variations),
      imageMatchScore: toNumberOrNull(row.image_match_score),
      parodyLikelihood: toNumber(row.parody_likelihood),
    },
    detectedAt: toDate(row.detected_at),
    gracePeriodId: row.grace_period_id,
    resolution: row.resolution as Violation['resolution'],
    resolutionNotes: row.resolution_notes,
    licenseId: row.license_id,
    resolvedAt: toDateOrNull(row.resolved_at),
    resolvedBy: row.resolved_by as Violation['resolvedBy'],
    resolutionEvidence:
      row.resolution_evidence === null ? null : fromJson<ResolutionEvidence>(row.resolution_evidence),
    detectedAvatar: row.detected_avatar === null ? null : fromJson<AvatarSnapshot>(row.detected_avatar),
    enforcedAt: toDateOrNull(row.enforced_at),
  };
}

/** Violations. */
export class ViolationRepository implements ViolationStore {
  async insert(tx: Queryable, v: Violation): Promise<void> {
    await tx.query(
      `INSERT INTO violations (id, platform_id, avatar_ref, box_id, claim_id, identity_name, box_owner_platform_id,
         policy, enforcement, policy_config, status, severity, confidence, layer, classification, matched_variations,
         image_match_score, parody_likelihood, detected_at, grace_period_id, resolution, resolution_notes, license_id,
         resolved_at, enforced_at, resolved_by, resolution_evidence, detected_avatar)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14, $15, $16::jsonb, $17, $18, $19,
         $20, $21, $22, $23, $24, $25, $26, $27::jsonb, $28::jsonb)`,
      [
        v.id,
        v.platformId,
        v.avatarRef,
        v.boxId,
        v.claimId,
        v.identityName,
        v.boxOwnerPlatformId,
        v.policy,
        v.enforcement,
        JSON.stringify(v.policyConfig),
        v.status,
        v.severity,
        v.detection.confidence,
        v.detection.layer,
        v.detection.classification,
        JSON.stringify(v.detection.matchedVariations),
        v.detection.imageMatchScore,
        v.detection.parodyLikelihood,
        v.detectedAt.toISOString(),
        v.gracePeriodId,
        v.resolution,
        v.resolutionNotes,
        v.licenseId,
        isoOrNull(v.resolvedAt),
        isoOrNull(v.enforcedAt),
        v.resolvedBy,
        jsonOrNull(v.resolutionEvidence),
        jsonOrNull(v.detectedAvatar),
      ],
    );
  }

  async update(tx: Queryable, v: Violation): Promise<void> {
    await tx.query(
      `UPDATE violations SET status = $2, resolution = $3, resolution_notes = $4, license_id = $5, resolved_at = $6,
         enforced_at = $7, resolved_by = $8, resolution_evidence = $9::jsonb WHERE id = $1`,
      [
        v.id,
        v.status,
        v.resolution,
        v.resolutionNotes,
        v.licenseId,
        isoOrNull(v.resolvedAt),
        isoOrNull(v.enforcedAt),
        v.resolvedBy,
        jsonOrNull(v.resolutionEvidence),
      ],
    );
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<Violation | null> {
    const { rows } = await q.query<ViolationRow>(
      `SELECT * FROM violations WHERE id = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toViolation(row);
  }

  async findMany(q: Queryable, ids: string[]): Promise<Map<string, Violation>> {
    const found = new Map<string, Violation>();
    if (ids.length === 0) return found;
    const { rows } = await q.query<ViolationRow>('SELECT * FROM violations WHERE id = ANY($1)', [ids]);
    for (const row of rows) found.set(row.id, toViolation(row));
    return found;
  }

  async openForAvatar(q: Queryable, avatarRef: string): Promise<Violation[]> {
    const { rows } = await q.query<ViolationRow>(
      `SELECT * FROM violations WHERE avatar_ref = $1 AND status IN ('pending', 'appealed') ORDER BY seq`,
      [avatarRef],
    );
    return rows.map(toViolation);
  }

  async openIdsForAvatars(q: Queryable, avatarRefs: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (avatarRefs.length === 0) return found;
    const { rows } = await q.query<{ id: string; avatar_ref: string }>(
      `SELECT id, avatar_ref FROM violations WHERE avatar_ref = ANY($1) AND status IN ('pending', 'appealed')
       ORDER BY seq`,
      [avatarRefs],
    );
    for (const row of rows) found.set(row.avatar_ref, [...(found.get(row.avatar_ref) ?? []), row.id]);
    return found;
  }

  async openIdsOnBox(q: Queryable, boxId: string, platformId?: string): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id FROM violations WHERE box_id = $1 AND status IN ('pending', 'appealed')
         AND ($2::text IS NULL OR platform_id = $2) ORDER BY seq`,
      [boxId, platformId ?? null],
    );
    return rows.map((row) => row.id);
  }

  async list(q: Queryable, filter: ViolationFilter): Promise<{ items: Violation[]; total: number }> {
    const { rows, total } = await selectPage<ViolationRow>(q, {
      select: '*',
      from: 'violations',
      equals: [
        ['platform_id', filter.platformId],
        ['status', filter.status],
        ['box_id', filter.boxId],
        ['severity', filter.severity],
      ],
      orderBy: 'detected_at DESC, seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toViolation), total };
  }

  async listOnBox(
    q: Queryable,
    filter: { boxId: string; status?: string | undefined; limit: number; offset: number },
  ): Promise<{ items: Violation[]; total: number }> {
    const { rows, total } = await selectPage<ViolationRow>(q, {
      select: '*',
      from: 'violations',
      equals: [
        ['box_id', filter.boxId],
        ['status', filter.status],
      ],
      orderBy: 'detected_at DESC, seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toViolation), total };
  }

  async casesOf(
    q: Queryable,
    violationIds: string[],
  ): Promise<Map<string, { violation: Violation; avatar: Avatar }>> {
    const found = new Map<string, { violation: Violation; avatar: Avatar }>();
    if (violationIds.length === 0) return found;
    const { rows } = await q.query<ViolationRow & { avatar: AvatarRow }>(
      `SELECT v.*, to_jsonb(a.*) AS avatar FROM violations v JOIN avatars a ON a.ref = v.avatar_ref
       WHERE v.id = ANY($1)`,
      [violationIds],
    );
    for (const row of rows) {
      found.set(row.id, { violation: toViolation(row), avatar: toAvatar(fromJson<AvatarRow>(row.avatar)) });
    }
    return found;
  }

  async markEnforced(tx: Queryable, violations: Violation[]): Promise<void> {
    if (violations.length === 0) return;
    await tx.query(
      `UPDATE violations SET status = e.status, enforced_at = e.enforced_at
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, status text, enforced_at timestamptz)
       WHERE violations.id = e.id`,
      [
        JSON.stringify(
          violations.map((v) => ({ id: v.id, status: v.status, enforced_at: isoOrNull(v.enforcedAt) })),
        ),
      ],
    );
  }

  async takedowns(
    q: Queryable,
    platformId: string,
    limit: number,
  ): Promise<{ violation: Violation; avatar: Avatar }[]> {
    const { rows } = await q.query<ViolationRow & { avatar: AvatarRow }>(
      `SELECT v.*, to_jsonb(a.*) AS avatar FROM violations v JOIN avatars a ON a.ref = v.avatar_ref
       WHERE v.platform_id = $1 AND v.status = 'enforced' AND a.deleted_at IS NULL
       ORDER BY v.enforced_at DESC, v.seq DESC LIMIT $2`,
      [platformId, limit],
    );
    return rows.map((row) => ({
      violation: toViolation(row),
      avatar: toAvatar(fromJson<AvatarRow>(row.avatar)),
    }));
  }
}
