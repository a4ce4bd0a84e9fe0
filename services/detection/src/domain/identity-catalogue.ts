import { imageSimilarity, ReferenceImageIndex, type ImageFingerprint } from '@svc/image-fingerprint';
import { decodeFingerprints, encodeFingerprints } from './catalogue-hits';
import type {
  CatalogueParts,
  FaceHit,
  IdentityFilter,
  ImageHit,
  NameHit,
  NameSearch,
  ReferenceFingerprint,
} from './catalogue-hits';
import { FaceGallery, type ReferenceFace } from './face-matching/face-gallery';
// What the use cases name with the catalogue.
export type { CatalogueParts, FaceHit, IdentityFilter } from './catalogue-hits';
import { enforcementOf, sameNames, type IndexedIdentity } from './identity';
import { IdentityRecords } from './identity-records';
import {
  identityMatchKeys,
  isAboveThreshold,
  MATCH_THRESHOLDS,
  NAME_INDEX_VERSION,
  NameIndex,
  type SearchMode,
} from '@svc/name-matching';

/** No identity's threshold is lower: a name scoring less is never accepted. */
const LOWEST_THRESHOLD = Math.min(...Object.values(MATCH_THRESHOLDS));

/**
 * The snapshot format of the whole catalogue: the name index's version, and the face gallery's
 * layout (1: faces added, ADR 0026). A snapshot of another one is rebuilt from the projection.
 */
export const CATALOGUE_VERSION = NAME_INDEX_VERSION * 100 + 1;

/**
 * Every verified identity of the projection in memory: the name index, the reference-image index
 * and the identities by claim and box id, in typed arrays and Buffers (ADR 0007). Loaded from a
 * snapshot or rebuilt from the database on start, and kept current by the index sync; reads never
 * touch the database.
 */
export class IdentityCatalogue {
  private names = new NameIndex();
  // Made on first use: an empty ReferenceImageIndex costs a few hundred milliseconds to set up.
  private imageIndex: ReferenceImageIndex | undefined;
  private identities = new IdentityRecords();
  private fingerprints = new Map<string, ReferenceFingerprint[]>();
  private faces = new FaceGallery();

  /** `parts`: a snapshot's arrays (see `parts()`), else an empty catalogue. */
  constructor(
    private readonly imageThreshold: number,
    parts?: CatalogueParts,
  ) {
    if (parts) this.restore(parts);
  }

  private images(): ReferenceImageIndex {
    this.imageIndex ??= new ReferenceImageIndex();
    return this.imageIndex;
  }

  /** Replaces everything held with a snapshot's arrays (see `parts()`). */
  restore(parts: CatalogueParts): void {
    this.imageIndex = undefined;
    this.fingerprints = new Map();
    const section = (prefix: string): CatalogueParts => {
      const out: CatalogueParts = {};
      for (const [key, value] of Object.entries(parts)) {
        if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
      }
      return out;
    };
    this.names = new NameIndex(section('names/'));
    this.identities = new IdentityRecords(section('records/'));
    this.faces = FaceGallery.fromParts(section('faces/'));
    const images = parts?.['images'];
    if (Buffer.isBuffer(images)) {
      for (const [claimId, references] of decodeFingerprints(images)) {
        for (const reference of references)
          this.images().add(claimId, reference.imageId, reference.fingerprint);
        this.fingerprints.set(claimId, references);
      }
    }
  }

  /** Every array and Buffer of the catalogue (views), for a snapshot. */
  parts(): CatalogueParts {
    const out: CatalogueParts = {};
    for (const [key, value] of Object.entries(this.names.parts())) out[`names/${key}`] = value;
    for (const [key, value] of Object.entries(this.identities.parts())) out[`records/${key}`] = value;
    for (const [key, value] of Object.entries(this.faces.parts())) out[`faces/${key}`] = value;
    out['images'] = encodeFingerprints(this.fingerprints);
    return out;
  }

  /**
   * Packs the name index's word tables when more than `share` of them was added since they were
   * last packed (a rebuild: all of it; a snapshot load: the changes after it). Synchronous: run it
   * before the replica is ready (about a second per million identities).
   */
  packNames(share = 1 / 8): boolean {
    if (this.names.unpackedShare <= share) return false;
    this.names.pack();
    return true;
  }

  /** Retrains the face index when the gallery's size moved far from what it was trained on (see packNames). */
  packFaces(): boolean {
    return this.faces.repack();
  }

  /** Names held, replaced and removed ones included (what a rebuild would drop). */
  get storedNames(): number {
    return this.names.storedNames;
  }

  /** Bytes of the name index's arrays. */
  get nameIndexBytes(): number {
    return this.names.bytes;
  }

  get size(): number {
    return this.identities.size;
  }

  get referenceImageCount(): number {
    return this.imageIndex?.size ?? 0;
  }

  /** Enrolled faces held (the gallery a checked face is compared with). */
  get faceCount(): number {
    return this.faces.size;
  }

  /** Adds or replaces an identity with its fingerprinted reference images and enrolled faces. */
  put(
    identity: IndexedIdentity,
    references: ReferenceFingerprint[],
    faces: readonly ReferenceFace[] = [],
  ): void {
    const previous = this.identities.get(identity.claimId);
    this.identities.put(identity);
    this.faces.put(identity.claimId, faces);
    // A box change leaves the names as they are: no new (and no garbage) entries in the index.
    if (!previous || !sameNames(previous, identity)) {
      this.names.add({ id: identity.claimId, names: [identity.name, ...identity.variations] });
    }
    // Most identities have no fingerprinted picture yet: keep nothing for them.
    if (this.fingerprints.delete(identity.claimId)) this.images().remove(identity.claimId);
    if (references.length === 0) return;
    for (const reference of references)
      this.images().add(identity.claimId, reference.imageId, reference.fingerprint);
    this.fingerprints.set(identity.claimId, references);
  }

  remove(claimId: string): void {
    if (!this.identities.get(claimId)) return;
    this.identities.remove(claimId);
    this.names.remove(claimId);
    this.faces.remove(claimId);
    if (this.fingerprints.delete(claimId)) this.images().remove(claimId);
  }

  byClaimId(claimId: string): IndexedIdentity | undefined {
    return this.identities.get(claimId);
  }

  byBoxId(boxId: string): IndexedIdentity | undefined {
    return this.identities.byBoxId(boxId);
  }

  /** The best name match at or above its identity's threshold (its box's level, else MODERATE). */
  matchName(query: string, filter?: IdentityFilter): NameHit | null {
    return this.searchName(query, filter).hit;
  }

  /**
   * The best match of a name (or, with mode 'description', of a protected name written in a
   * description) at or above its identity's threshold, and the best score of any candidate.
   */
  searchName(
    query: string,
    filter?: IdentityFilter,
    mode: SearchMode = 'name',
    only?: IndexedIdentity,
  ): NameSearch {
    if (only !== undefined) return this.searchNameOf(only, query, filter, mode);
    let accepted: IndexedIdentity | undefined;
    const outcome = this.names.search(
      query,
      (result) => {
        const identity = this.identities.get(result.identityId);
        const ok =
          identity !== undefined &&
          (filter === undefined || filter(identity)) &&
          isAboveThreshold(result.confidence, enforcementOf(identity));
        if (ok) accepted = identity;
        return ok;
      },
      mode,
      LOWEST_THRESHOLD,
    );
    const match = outcome.best;
    const identity =
      match === null
        ? undefined
        : accepted?.claimId === match.identityId
          ? accepted
          : this.identities.get(match.identityId);
    return { hit: match && identity ? { identity, match } : null, bestScore: outcome.bestScore };
  }

  /**
   * searchName limited to one identity (a box's initial scan): only its own names are scored, not
   * every name the query's words lead to (each of those read back and turned down by the filter),
   * so a scan's question costs the same whatever the size of the catalogue. `bestScore` is its own.
   */
  private searchNameOf(
    identity: IndexedIdentity,
    query: string,
    filter: IdentityFilter | undefined,
    mode: SearchMode,
  ): NameSearch {
    if (filter !== undefined && !filter(identity)) return { hit: null, bestScore: 0 };
    const level = enforcementOf(identity);
    const outcome = this.names.searchIdentity(
      query,
      identity.claimId,
      (result) => isAboveThreshold(result.confidence, level),
      mode,
    );
    const match = outcome.best;
    return { hit: match ? { identity, match } : null, bestScore: outcome.bestScore };
  }

  /**
   * The match keys of an identity's names as the index holds them (@svc/name-matching): a box's
   * initial scan asks only about avatars whose keys meet them (issue #34). Empty when unknown.
   */
  matchKeys(claimId: string): number[] {
    return identityMatchKeys(this.names, claimId);
  }

  /**
   * The identity whose reference image is most like this picture, at or above the image threshold.
   * With a filter, the index's best must pass it (an image lookup stays one index query; for one
   * box, `imageScore` compares against that identity's own references).
   */
  matchImage(fingerprint: ImageFingerprint, filter?: IdentityFilter): ImageHit | null {
    const best = this.imageIndex?.bestMatch(fingerprint, this.imageThreshold) ?? null;
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

  /**
   * Identities with an enrolled face within `radius` of a face of the picture, nearest first
   * (each with its closest face); `only`: that identity alone.
   */
  searchFaces(
    descriptors: readonly Float32Array[],
    radius: number,
    filter?: IdentityFilter,
    only?: string,
  ): FaceHit[] {
    const hits: FaceHit[] = [];
    for (const candidate of this.faces.search(descriptors, radius, only)) {
      const identity = this.identities.get(candidate.claimId);
      if (identity === undefined || (filter !== undefined && !filter(identity))) continue;
      hits.push({
        identity,
        imageId: candidate.imageId,
        distance: candidate.distance,
        meanDistance: candidate.meanDistance,
        references: candidate.references,
      });
    }
    return hits;
  }

  /** These identities' faces stop matching now (deleted in the database before the index read it). */
  forgetFaces(claimIds: readonly string[]): void {
    for (const claimId of claimIds) this.faces.remove(claimId);
  }

  /** True when a picture this alike counts as a match. */
  isImageMatch(similarity: number): boolean {
    return similarity >= this.imageThreshold;
  }
}
