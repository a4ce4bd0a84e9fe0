import { imageSimilarity, ReferenceImageIndex, type ImageFingerprint } from '@svc/image-fingerprint';
import { enforcementOf, type IndexedIdentity } from './identity';
import type { MatchResult } from './name-matching/match-result';
import { NameIndex } from './name-matching/name-index';
import { isAboveThreshold } from './name-matching/thresholds';

export interface ReferenceFingerprint {
  imageId: string;
  fingerprint: ImageFingerprint;
}

export interface NameHit {
  identity: IndexedIdentity;
  match: MatchResult;
}

export interface ImageHit {
  identity: IndexedIdentity;
  imageId: string;
  similarity: number;
}

/** Which identities a search may return (e.g. boxed ones only, or one box). */
export type IdentityFilter = (identity: IndexedIdentity) => boolean;

/**
 * Every verified identity of the projection in memory: the name index, the reference-image index
 * and the identities by claim and box id. Rebuilt from the database on start and kept current by
 * the index sync; reads never touch the database.
 */
export class IdentityCatalogue {
  private readonly names = new NameIndex();
  private readonly images = new ReferenceImageIndex();
  private readonly identities = new Map<string, IndexedIdentity>();
  private readonly claimOfBox = new Map<string, string>();
  private readonly fingerprints = new Map<string, ReferenceFingerprint[]>();

  constructor(private readonly imageThreshold: number) {}

  get size(): number {
    return this.identities.size;
  }

  get referenceImageCount(): number {
    return this.images.size;
  }

  /** Adds or replaces an identity with its fingerprinted reference images. */
  put(identity: IndexedIdentity, references: ReferenceFingerprint[]): void {
    const previous = this.identities.get(identity.claimId);
    if (previous?.box) this.claimOfBox.delete(previous.box.boxId);
    this.identities.set(identity.claimId, identity);
    if (identity.box) this.claimOfBox.set(identity.box.boxId, identity.claimId);
    this.names.add({ id: identity.claimId, names: [identity.name, ...identity.variations] });
    // Most identities have no fingerprinted picture yet: keep nothing for them.
    if (this.fingerprints.delete(identity.claimId)) this.images.remove(identity.claimId);
    if (references.length === 0) return;
    for (const reference of references)
      this.images.add(identity.claimId, reference.imageId, reference.fingerprint);
    this.fingerprints.set(identity.claimId, references);
  }

  remove(claimId: string): void {
    const previous = this.identities.get(claimId);
    if (!previous) return;
    if (previous.box) this.claimOfBox.delete(previous.box.boxId);
    this.identities.delete(claimId);
    this.names.remove(claimId);
    if (this.fingerprints.delete(claimId)) this.images.remove(claimId);
  }

  byClaimId(claimId: string): IndexedIdentity | undefined {
    return this.identities.get(claimId);
  }

  byBoxId(boxId: string): IndexedIdentity | undefined {
    const claimId = this.claimOfBox.get(boxId);
    return claimId === undefined ? undefined : this.identities.get(claimId);
  }

  /** The best name match at or above its identity's threshold (its box's level, else MODERATE). */
  matchName(query: string, filter?: IdentityFilter): NameHit | null {
    const match = this.names.bestMatch(query, (result) => {
      const identity = this.identities.get(result.identityId);
      return (
        identity !== undefined &&
        (filter === undefined || filter(identity)) &&
        isAboveThreshold(result.confidence, enforcementOf(identity))
      );
    });
    const identity = match ? this.identities.get(match.identityId) : undefined;
    return match && identity ? { identity, match } : null;
  }

  /**
   * The identity whose reference image is most like this picture, at or above the image threshold.
   * With a filter, the index's best must pass it (an image lookup stays one index query; for one
   * box, `imageScore` compares against that identity's own references).
   */
  matchImage(fingerprint: ImageFingerprint, filter?: IdentityFilter): ImageHit | null {
    const best = this.images.bestMatch(fingerprint, this.imageThreshold);
    const identity = best ? this.identities.get(best.identityId) : undefined;
    if (!best || !identity || (filter !== undefined && !filter(identity))) return null;
    return { identity, imageId: best.imageId, similarity: best.similarity };
  }

  /** How alike the picture is to the identity's closest reference image; null when it has none. */
  imageScore(claimId: string, fingerprint: ImageFingerprint): { imageId: string; similarity: number } | null {
    let best: { imageId: string; similarity: number } | null = null;
    for (const reference of this.fingerprints.get(claimId) ?? []) {
      const similarity = imageSimilarity(reference.fingerprint, fingerprint);
      if (best === null || similarity > best.similarity) best = { imageId: reference.imageId, similarity };
    }
    return best;
  }

  /** True when a picture this alike counts as a match. */
  isImageMatch(similarity: number): boolean {
    return similarity >= this.imageThreshold;
  }
}
