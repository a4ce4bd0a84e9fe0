import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { boxIndexed } from '@svc/contracts/detection';
import {
  boxCreated,
  boxDeleted,
  boxUpdated,
  claimCreated,
  claimDeleted,
  claimRejected,
  claimUpdated,
  claimVerified,
} from '@svc/contracts/registry';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { BoxAnnouncement, IdentityStore } from './ports';

export interface ProjectionDeps {
  identities: IdentityStore;
  clock: Clock;
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
}

/** detection.box.indexed for a box whose names and reference images are in the index. */
export function boxIndexedEvent(announcement: BoxAnnouncement, at: Date): EventEnvelope {
  const { identity } = announcement;
  const box = identity.box;
  if (!box) throw new Error(`identity ${identity.claimId} has no box to announce`);
  return boxIndexed.create(
    {
      boxId: box.boxId,
      claimId: identity.claimId,
      ownerPlatformId: identity.ownerPlatformId,
      identityName: identity.name,
      policy: box.policy,
      enforcement: box.enforcement,
      firstIndexed: announcement.firstIndexed,
      referenceImagesIndexed: announcement.referenceImagesIndexed,
      indexedAt: at.toISOString(),
    },
    { platformId: identity.ownerPlatformId, occurredAt: at },
  );
}

async function announceIfSettled(deps: ProjectionDeps, tx: Queryable, claimId: string): Promise<void> {
  const announcement = await deps.identities.takeBoxAnnouncement(tx, claimId);
  if (announcement) await deps.outbox(tx, boxIndexedEvent(announcement, deps.clock.now()));
}

/**
 * Keeps the identity projection from registry.claim.* and registry.box.*: a verified claim
 * becomes matchable (names now, reference images once fingerprinted); a rejected, suspended or
 * deleted one is removed; a box brings its policy. Events older than the stored state (by the
 * entity version, then the registry's instant: ADR 0010) are stale, so any order of delivery ends
 * in the same index.
 */
export async function projectRegistryEvent(
  deps: ProjectionDeps,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  const { identities } = deps;
  const version = entityVersionOf(envelope);
  await identities.lockForChange(tx);
  switch (envelope.type) {
    case claimCreated.type:
    case claimUpdated.type:
    case claimVerified.type: {
      const definition =
        envelope.type === claimVerified.type
          ? claimVerified
          : envelope.type === claimUpdated.type
            ? claimUpdated
            : claimCreated;
      const { data } = definition.parse(envelope);
      // Only verified claims count as claimed (docs/spec/contracts.md §13).
      if (data.status !== 'verified' || data.verifiedAt === null) {
        await identities.removeClaim(tx, {
          claimId: data.claimId,
          ownerPlatformId: data.ownerPlatformId,
          at: new Date(data.updatedAt),
          version,
        });
        return;
      }
      const applied = await identities.upsertClaim(tx, {
        claimId: data.claimId,
        ownerPlatformId: data.ownerPlatformId,
        name: data.name,
        variations: data.variations,
        entityType: data.entityType,
        verificationTier: data.verificationTier,
        verifiedAt: new Date(data.verifiedAt),
        updatedAt: new Date(data.updatedAt),
        version,
        referenceImages: data.referenceImages,
      });
      if (applied === 'stale') return;
      await identities.replaceReferenceImages(tx, data.claimId, data.referenceImages, deps.clock.now());
      await announceIfSettled(deps, tx, data.claimId);
      return;
    }
    case claimRejected.type: {
      const { data } = claimRejected.parse(envelope);
      await identities.removeClaim(tx, {
        claimId: data.claimId,
        ownerPlatformId: data.ownerPlatformId,
        at: new Date(data.updatedAt),
        version,
      });
      return;
    }
    case claimDeleted.type: {
      const { data } = claimDeleted.parse(envelope);
      await identities.removeClaim(tx, {
        claimId: data.claimId,
        ownerPlatformId: data.ownerPlatformId,
        at: new Date(data.deletedAt),
        version,
      });
      return;
    }
    case boxCreated.type:
    case boxUpdated.type: {
      const { data } = (envelope.type === boxCreated.type ? boxCreated : boxUpdated).parse(envelope);
      const applied = await identities.upsertBox(tx, {
        boxId: data.boxId,
        claimId: data.claimId,
        ownerPlatformId: data.ownerPlatformId,
        identityName: data.identityName,
        variations: data.variations,
        entityType: data.entityType,
        verificationTier: data.verificationTier,
        policy: data.policy,
        enforcement: data.enforcement,
        policyConfig: data.policyConfig,
        royaltyRate: data.royaltyRate,
        boxedAt: new Date(data.createdAt),
        updatedAt: new Date(data.updatedAt),
        version,
        claimVersion: data.claimVersion ?? 0,
      });
      if (applied === 'applied') await announceIfSettled(deps, tx, data.claimId);
      return;
    }
    case boxDeleted.type: {
      const { data } = boxDeleted.parse(envelope);
      await identities.removeBox(tx, data.boxId);
      return;
    }
    default:
      return;
  }
}
