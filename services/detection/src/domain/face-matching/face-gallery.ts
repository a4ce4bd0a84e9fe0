import { FaceIndex, type FaceIndexParts } from '@svc/face-engine';

/** An enrolled face: the reference image it was found in, and its descriptor. */
export interface ReferenceFace {
  imageId: string;
  descriptor: Float32Array;
}

/** The closest enrolled face of one identity to the faces of a checked picture. */
export interface FaceCandidate {
  claimId: string;
  imageId: string;
  distance: number;
  /**
   * The second stage: the checked face's mean distance to every enrolled picture of the identity
   * (the face of the picture closest on that mean), and how many pictures that is.
   */
  meanDistance: number;
  references: number;
}

/** How many enrolled faces one search may return before they are grouped by identity. */
const SEARCH_LIMIT = 64;

/**
 * The enrolled faces of the catalogue's identities: the face index (@svc/face-engine) and which
 * claim and reference image each face belongs to. Faces are numbered here; the numbers mean
 * nothing outside one replica's memory and its snapshot.
 */
export class FaceGallery {
  private index = new FaceIndex();
  private nextFaceId = 1;
  private readonly facesOf = new Map<string, { faceId: number; imageId: string }[]>();
  private readonly imageOf = new Map<number, string>();

  get size(): number {
    return this.imageOf.size;
  }

  /** Replaces the identity's enrolled faces (none: it has no face to match). */
  put(claimId: string, faces: readonly ReferenceFace[]): void {
    this.remove(claimId);
    if (faces.length === 0) return;
    const entries: { faceId: number; imageId: string }[] = [];
    for (const face of faces) {
      const faceId = this.nextFaceId;
      this.nextFaceId += 1;
      this.index.add(faceId, claimId, face.descriptor);
      this.imageOf.set(faceId, face.imageId);
      entries.push({ faceId, imageId: face.imageId });
    }
    this.facesOf.set(claimId, entries);
  }

  /** The identity's faces stop matching at once. */
  remove(claimId: string): void {
    const entries = this.facesOf.get(claimId);
    if (entries === undefined) return;
    this.index.removeOwner(claimId);
    for (const entry of entries) this.imageOf.delete(entry.faceId);
    this.facesOf.delete(claimId);
  }

  /**
   * Retrains the index's lists when the gallery outgrew (or shrank far below) what they were
   * trained on; synchronous, so it runs where the name index is packed: on load, before ready.
   */
  repack(): boolean {
    if (!this.index.rebuildAdvised) return false;
    this.index.rebuild();
    return true;
  }

  /** Bytes of the face index's arrays. */
  get bytes(): number {
    return this.index.bytes();
  }

  has(claimId: string): boolean {
    return this.facesOf.has(claimId);
  }

  /**
   * Each identity with an enrolled face within `radius` of one of the picture's faces, with its
   * closest face, nearest first. `only`: that identity alone (a box's initial scan).
   */
  search(descriptors: readonly Float32Array[], radius: number, only?: string): FaceCandidate[] {
    if (this.imageOf.size === 0) return [];
    const best = new Map<string, FaceCandidate>();
    for (const descriptor of descriptors) {
      for (const hit of this.index.search(descriptor, radius, SEARCH_LIMIT)) {
        if (only !== undefined && hit.ownerKey !== only) continue;
        const imageId = this.imageOf.get(hit.faceId);
        if (imageId === undefined) continue;
        const known = best.get(hit.ownerKey);
        // A candidate with several pictures is compared with all of them (exact distances).
        const all = this.index.distancesToOwner(descriptor, hit.ownerKey);
        const meanDistance =
          all.length === 0 ? hit.distance : all.reduce((sum, d) => sum + d, 0) / all.length;
        if (known === undefined) {
          best.set(hit.ownerKey, {
            claimId: hit.ownerKey,
            imageId,
            distance: hit.distance,
            meanDistance,
            references: Math.max(1, all.length),
          });
        } else {
          if (hit.distance < known.distance) {
            known.distance = hit.distance;
            known.imageId = imageId;
          }
          known.meanDistance = Math.min(known.meanDistance, meanDistance);
        }
      }
    }
    return [...best.values()].sort((a, b) => a.distance - b.distance || (a.claimId < b.claimId ? -1 : 1));
  }

  /** The index's arrays and the face-to-image table, for a snapshot. */
  parts(): Record<string, Uint32Array | Buffer> {
    const out: Record<string, Uint32Array | Buffer> = {};
    for (const [key, value] of Object.entries(this.index.toParts())) out[`index/${key}`] = value;
    const table = [...this.facesOf].map(([claimId, entries]) => [
      claimId,
      entries.map((entry) => [entry.faceId, entry.imageId]),
    ]);
    out['table'] = Buffer.from(JSON.stringify({ next: this.nextFaceId, table }), 'utf8');
    return out;
  }

  /** A gallery from a snapshot's parts (see `parts()`); empty when it has none. */
  static fromParts(parts: Record<string, Uint32Array | Buffer>): FaceGallery {
    const gallery = new FaceGallery();
    const table = parts['table'];
    if (!Buffer.isBuffer(table)) return gallery;
    const indexParts: FaceIndexParts = {};
    for (const [key, value] of Object.entries(parts)) {
      if (key.startsWith('index/')) indexParts[key.slice('index/'.length)] = value;
    }
    gallery.index = FaceIndex.fromParts(indexParts);
    const stored = JSON.parse(table.toString('utf8')) as {
      next: number;
      table: [string, [number, string][]][];
    };
    gallery.nextFaceId = stored.next;
    for (const [claimId, entries] of stored.table) {
      gallery.facesOf.set(
        claimId,
        entries.map(([faceId, imageId]) => ({ faceId, imageId })),
      );
      for (const [faceId, imageId] of entries) gallery.imageOf.set(faceId, imageId);
    }
    return gallery;
  }
}
