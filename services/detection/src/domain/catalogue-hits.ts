import { fingerprintFromHex, fingerprintToHex, type ImageFingerprint } from '@svc/image-fingerprint';
import type { MatchResult } from '@svc/name-matching';
import type { IndexedIdentity } from './identity';

// What the identity catalogue answers (./identity-catalogue.ts), and how its reference-image
// fingerprints are kept in a snapshot.

/** The catalogue's flat arrays and Buffers, as a snapshot stores them (ADR 0007). */
export type CatalogueParts = Record<string, Uint32Array | Buffer>;

export interface ReferenceFingerprint {
  imageId: string;
  fingerprint: ImageFingerprint;
}

export interface NameHit {
  identity: IndexedIdentity;
  match: MatchResult;
}

/** A name search: the best accepted hit, and the best score of any candidate (near misses). */
export interface NameSearch {
  hit: NameHit | null;
  bestScore: number;
}

/** An identity with an enrolled face close to a face of the checked picture. */
export interface FaceHit {
  identity: IndexedIdentity;
  imageId: string;
  distance: number;
  /** The mean distance to all of the identity's enrolled pictures, and how many (the second stage). */
  meanDistance: number;
  references: number;
}

export interface ImageHit {
  identity: IndexedIdentity;
  imageId: string;
  similarity: number;
}

/** Which identities a search may return (e.g. boxed ones only, or one box). */
export type IdentityFilter = (identity: IndexedIdentity) => boolean;

/** The fingerprints of each identity's reference images as a snapshot stores them (JSON, hex). */
export function encodeFingerprints(fingerprints: ReadonlyMap<string, ReferenceFingerprint[]>): Buffer {
  const images = [...fingerprints].map(([claimId, references]) => [
    claimId,
    references.map((r) => ({ imageId: r.imageId, hex: fingerprintToHex(r.fingerprint) })),
  ]);
  return Buffer.from(JSON.stringify(images), 'utf8');
}

/** The fingerprints of each identity's reference images, read back from a snapshot. */
export function decodeFingerprints(images: Buffer): [string, ReferenceFingerprint[]][] {
  const stored = JSON.parse(images.toString('utf8')) as [string, { imageId: string; hex: string }[]][];
  return stored.map(([claimId, references]) => [
    claimId,
    references.map((r) => ({ imageId: r.imageId, fingerprint: fingerprintFromHex(r.hex) })),
  ]);
}
