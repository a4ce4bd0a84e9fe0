import { kyselyOn, type Queryable } from '@svc/storage';
import type { IndexedIdentity } from '../domain/identity';
import type { DB } from './db.generated';

// The identity as the index reads it from a row of the identity projection.
const IDENTITY = [
  'claimId',
  'ownerPlatformId',
  'name',
  'variations',
  'entityType',
  'verificationTier',
  'verifiedAt',
  'removed',
  'boxId',
  'policy',
  'enforcement',
  'policyConfig',
  'royaltyRate',
  'boxedAt',
  'changeSeq',
] as const;

/** The identity columns of the projection, to select from. */
export function identities(q: Queryable) {
  return kyselyOn<DB>(q).selectFrom('identities').select(IDENTITY);
}

type IdentityRow = Awaited<ReturnType<ReturnType<typeof identities>['executeTakeFirstOrThrow']>>;

// The one mapping left: the box's columns make one nested value, or null without a box.
export function toIdentity(row: IdentityRow): IndexedIdentity {
  const { boxId, policy, enforcement, policyConfig, royaltyRate, boxedAt } = row;
  return {
    claimId: row.claimId,
    ownerPlatformId: row.ownerPlatformId,
    name: row.name,
    variations: row.variations,
    entityType: row.entityType,
    verificationTier: row.verificationTier,
    verifiedAt: row.verifiedAt,
    box:
      boxId !== null && policy !== null && enforcement !== null && boxedAt !== null
        ? {
            boxId,
            policy,
            enforcement,
            policyConfig: policyConfig ?? {},
            royaltyRate: royaltyRate ?? 0,
            boxedAt,
          }
        : null,
  };
}
