import type { Clock } from '@svc/clock';
import type { IndexKnowledge } from '@svc/contracts/detection';
import type { ImageFingerprint } from '@svc/image-fingerprint';
import type { Queryable } from '@svc/ports';
import type { IdentityCatalogue } from './identity-catalogue';
import type { BoxTerms, IndexedIdentity } from './identity';

/** The platform calling, from the gateway's internal token. */
export interface Caller {
  platformId: string;
  platformDomain?: string | undefined;
}

/** A checked picture: its fingerprint, and its faces' descriptors (null: not examined in time). */
export interface PictureAnalysis {
  fingerprint: ImageFingerprint;
  faces: { descriptors: Float32Array[] } | null;
}

/** A reference image being enrolled: its fingerprint and every face found (null: no examiner). */
export interface EnrolledPicture {
  fingerprint: ImageFingerprint;
  faces: { descriptor: Float32Array; score: number; width: number }[] | null;
}

/** Pictures by URL (fetched through the outbound-fetch guard). */
export interface ImageSource {
  /** The fingerprint (cached); INVALID_IMAGE_URL or IMAGE_TOO_LARGE (AppError) when the picture cannot be had. */
  fingerprintOf(url: string): Promise<ImageFingerprint>;
  /** Fingerprint and faces of a checked picture, under the platform's budget (RATE_LIMITED past it). */
  analyse(
    url: string,
    options: {
      platformId: string;
      timeoutMs: number;
      fetchTimeoutMs?: number;
      totalMs?: number;
      /**
       * When the platform already has its share of pictures: 'refuse' (default) throws
       * RATE_LIMITED; 'without_faces' answers the fingerprint alone when it is cheap to take (a
       * batch item), else INVALID_IMAGE_URL reason `examination_timeout`.
       */
      whenBusy?: 'refuse' | 'without_faces';
    },
  ): Promise<PictureAnalysis>;
  /** Fingerprint and faces of a reference image. */
  enrol(url: string): Promise<EnrolledPicture>;
}

/** Licensing's licenses, as far as detection needs them. */
export interface LicenseStore {
  /** The tiers of the platform's active licenses on the box. */
  activeLicenseTiers(db: Queryable, platformId: string, boxId: string, now: Date): Promise<string[]>;
  /** The same for several boxes in one query (a batch): box id -> tiers; boxes without any are absent. */
  activeLicenseTiersByBox(
    db: Queryable,
    platformId: string,
    boxIds: readonly string[],
    now: Date,
  ): Promise<Map<string, string[]>>;
  upsert(
    tx: Queryable,
    license: {
      licenseId: string;
      boxId: string;
      licenseePlatformId: string;
      tier: string;
      status: string;
      expiresAt: Date;
      updatedAt: Date;
      /** The license's entity version (ADR 0010); 0 for an unversioned event. */
      version: number;
    },
  ): Promise<void>;
}

/** A verified claim as the registry announced it. */
export interface ClaimState {
  claimId: string;
  ownerPlatformId: string;
  name: string;
  variations: string[];
  entityType: IndexedIdentity['entityType'];
  verificationTier: IndexedIdentity['verificationTier'];
  verifiedAt: Date;
  updatedAt: Date;
  /** The claim's entity version (ADR 0010); 0 for an unversioned event. */
  version: number;
  referenceImages: { id: string; url: string }[];
}

/** A claim that stops counting (pending, rejected, suspended or deleted) as of `version`/`at`. */
export interface ClaimRemoval {
  claimId: string;
  ownerPlatformId: string;
  at: Date;
  version: number;
}

/** What a box event changes on its identity. */
export interface BoxState extends BoxTerms {
  claimId: string;
  ownerPlatformId: string;
  identityName: string;
  variations: string[];
  entityType: IndexedIdentity['entityType'];
  verificationTier: IndexedIdentity['verificationTier'];
  updatedAt: Date;
  /** The box's entity version (ADR 0010); 0 for an unversioned event. */
  version: number;
  /** The claim's entity version the box event carries (0 when it carries none). */
  claimVersion: number;
}

/** The projection's changes as one replica reads them into its catalogue. */
export interface IdentityChange {
  claimId: string;
  changeSeq: number;
  /** null: the identity is gone (removed claim). */
  identity: IndexedIdentity | null;
}

/** An announcement of a box made matchable (detection.box.indexed). */
export interface BoxAnnouncement {
  identity: IndexedIdentity;
  firstIndexed: boolean;
  referenceImagesIndexed: number;
}

/** The identity projection (SQL lives in data-access). */
export interface IdentityStore {
  /** Serialises projection writers (sequence order = commit order); call first in a transaction. */
  lockForChange(tx: Queryable): Promise<void>;
  /** Applies a verified claim unless a later state of the claim is stored. */
  upsertClaim(tx: Queryable, claim: ClaimState): Promise<'applied' | 'stale'>;
  /** Makes the claim unmatchable unless a later state is stored; keeps a tombstone either way. */
  removeClaim(tx: Queryable, removal: ClaimRemoval): Promise<'applied' | 'stale'>;
  /** Applies a box (creating the identity from the box when the claim is not yet known). */
  upsertBox(tx: Queryable, box: BoxState): Promise<'applied' | 'stale'>;
  /** Removes the box for good: a late event of it never brings it back. */
  removeBox(tx: Queryable, boxId: string): Promise<void>;
  /** Replaces the claim's reference images: new URLs wait for a fingerprint, gone ones go. */
  replaceReferenceImages(
    tx: Queryable,
    claimId: string,
    images: { id: string; url: string }[],
    now: Date,
  ): Promise<void>;
  /** Publishes detection.box.indexed once the box's images are settled: the announcement, or null. */
  takeBoxAnnouncement(tx: Queryable, claimId: string): Promise<BoxAnnouncement | null>;
  /** The identity changed (a new fingerprint of its pictures): replicas read it again. */
  touch(tx: Queryable, claimId: string): Promise<void>;
  /** The platform that owns the claim, when the projection knows it. */
  ownerOf(q: Queryable, claimId: string): Promise<string | null>;
  changesAfter(db: Queryable, changeSeq: number, limit: number): Promise<IdentityChange[]>;
  /** The projection's own id (made once by its migration) and the last change_seq drawn. */
  projectionState(db: Queryable): Promise<{ projectionId: string; lastChangeSeq: number }>;
  /** The claims' fingerprinted and enrolled reference images (faces of `faceModel` only). */
  referencesOf(
    db: Queryable,
    claimIds: string[],
    faceModel: string,
  ): Promise<Map<string, { imageId: string; hex: string | null; face: Float32Array | null }[]>>;
}

/** Enrolled faces as the database has them now (a replica's index may be a moment behind). */
export interface EnrolledFaceStore {
  /** Which of these reference images still have an enrolled face. */
  enrolledFaces(db: Queryable, imageIds: readonly string[]): Promise<Set<string>>;
}

export interface DetectionContext {
  catalogue: IdentityCatalogue;
  images: ImageSource;
  faces: EnrolledFaceStore;
  /** How long a check (and a batch, in all) waits for the faces of its pictures. */
  faceTimeouts: { checkMs: number; batchMs: number };
  /**
   * How long a check waits for its picture to arrive: within the gateway's budget, so that one
   * platform's slow pictures are answered (422) by detection rather than timing out at the gateway
   * and opening the breaker every platform shares (docs/spec/contracts.md §15, §17).
   */
  pictureFetchMs: { checkMs: number; batchMs: number };
  /** A check's whole time for its picture (fetch and faces), under the gateway's budget. */
  checkPictureBudgetMs: number;
  licenses: LicenseStore;
  db: Queryable;
  clock: Clock;
  /** Reads the projection's latest changes into the catalogue now. */
  refresh(): Promise<void>;
  /** How far the catalogue has read the projection (undefined until its id is known). */
  knowledge(): IndexKnowledge | undefined;
  /** False while the index loads on start: checks answer 503 rather than from a partial index. */
  indexReady(): boolean;
}

/** The index as a snapshot holds it: its arrays, and which projection and change it covers. */
export interface IndexSnapshot {
  /** The index's layout and matching rules (NAME_INDEX_VERSION): another one is rebuilt. */
  indexVersion: number;
  /** Every change up to this change_seq is in it; later ones are applied on load. */
  changeSeq: number;
  /** The projection (database) it was built from: another one's snapshot is never used. */
  projectionId: string;
  parts: Record<string, Uint32Array | Buffer>;
}

/** A snapshot read back, or why there is none to use. */
export type SnapshotRead = { snapshot: IndexSnapshot; bytes: number } | { problem: string };

/** Where a replica keeps its index snapshot (a file on the pod: a missing one means a rebuild). */
export interface IndexSnapshotStore {
  readonly location: string;
  /** Writes the snapshot whole or not at all; returns its size in bytes. */
  save(snapshot: IndexSnapshot): Promise<number>;
  load(): Promise<SnapshotRead>;
}
