import { AppError } from '@svc/errors';
import { MAX_NAME_LENGTH, readName, type FaceStatus } from '@svc/contracts/common';

export type EntityType = 'INDIVIDUAL' | 'ESTATE' | 'CORPORATION' | 'AGENCY';
export type ClaimStatus = 'pending' | 'verified' | 'rejected' | 'suspended';
export type VerificationTier = 'GOLD' | 'SILVER' | 'BRONZE';

export interface ReferenceImage {
  id: string;
  url: string;
  isPrimary: boolean;
  /** Detection's enrolment of the picture's face (detection.reference_image.enrolled); absent: pending. */
  face?: { status: FaceStatus } | undefined;
}

export interface Verification {
  method: string;
  completedAt: Date;
  documents: string[];
}

export interface Proof {
  type: string;
  platform: string;
  handle: string;
  verifiedAt: Date;
}

export interface Claim {
  id: string;
  ownerPlatformId: string;
  name: string;
  variations: string[];
  entityType: EntityType;
  status: ClaimStatus;
  verificationTier: VerificationTier;
  verification: Verification | null;
  proofs: Proof[];
  referenceImages: ReferenceImage[];
  rejectionReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  verifiedAt: Date | null;
  /** The claim's box, when it has one. */
  boxId: string | null;
}

export { MAX_NAME_LENGTH };
export const MAX_VARIATIONS = 50;
export const MAX_REFERENCE_IMAGES = 20;

/**
 * Checks a name or variation and returns it trimmed (NFC). INVALID_NAME when it is empty, only
 * punctuation or whitespace, over 200 characters, or holds a control character (contracts' readName).
 */
export function checkName(value: string, field = 'name'): string {
  const read = readName(value);
  if ('problem' in read) {
    throw new AppError('INVALID_NAME', `${field}: ${read.problem}`, {
      details: { field, reason: read.problem },
    });
  }
  return read.name;
}

function variationKey(value: string): string {
  return value.normalize('NFKC').toLocaleLowerCase('und');
}

/** Checks every variation and keeps the first of each case-insensitive duplicate, in order. */
export function checkVariations(values: readonly string[], fieldPrefix = 'variations'): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  values.forEach((value, index) => {
    const name = checkName(value, `${fieldPrefix}.${index}`);
    const key = variationKey(name);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(name);
  });
  if (out.length > MAX_VARIATIONS) {
    throw new AppError('VALIDATION_ERROR', `A claim has at most ${MAX_VARIATIONS} variations`, {
      details: { fields: [{ field: fieldPrefix, message: `at most ${MAX_VARIATIONS} variations` }] },
    });
  }
  return out;
}

/** Adds one variation; an existing one (ignoring case) leaves the list as it is. */
export function withVariation(variations: readonly string[], value: string): string[] {
  const name = checkName(value, 'variation');
  if (variations.some((v) => variationKey(v) === variationKey(name))) return [...variations];
  return checkVariations([...variations, name], 'variation');
}

export interface ImageInput {
  url: string;
  isPrimary?: boolean | undefined;
}

function tooManyImages(field: string): AppError {
  return new AppError('VALIDATION_ERROR', `A claim has at most ${MAX_REFERENCE_IMAGES} reference images`, {
    details: { fields: [{ field, message: `at most ${MAX_REFERENCE_IMAGES} images` }] },
  });
}

/** Exactly one primary: the one marked, else the first. */
function withOnePrimary(images: ReferenceImage[], primaryUrl: string | undefined): ReferenceImage[] {
  const primary = primaryUrl ?? images[0]?.url;
  return images.map((image) => ({ ...image, isPrimary: image.url === primary }));
}

/**
 * The reference images for `inputs` (create, or a PATCH that replaces them): one per url, an url
 * already on the claim keeps its id, exactly one primary (the one marked, else the first).
 */
export function arrangeImages(
  inputs: readonly ImageInput[],
  existing: readonly ReferenceImage[],
  newImageId: () => string,
): ReferenceImage[] {
  // An url already on the claim keeps its image (its id, and the face detection enrolled for it).
  const byUrl = new Map(existing.map((image) => [image.url, image]));
  const images: ReferenceImage[] = [];
  let primaryUrl: string | undefined;
  for (const input of inputs) {
    if (input.isPrimary === true) primaryUrl ??= input.url;
    if (images.some((image) => image.url === input.url)) continue;
    const kept = byUrl.get(input.url);
    images.push(
      kept ? { ...kept, isPrimary: false } : { id: newImageId(), url: input.url, isPrimary: false },
    );
  }
  if (images.length === 0) {
    throw new AppError('VALIDATION_ERROR', 'At least one reference image is required', {
      details: {
        fields: [{ field: 'referenceImages', message: 'at least one reference image is required' }],
      },
    });
  }
  if (images.length > MAX_REFERENCE_IMAGES) throw tooManyImages('referenceImages');
  return withOnePrimary(images, primaryUrl);
}

/** Adds one image (an url already there changes nothing but may become primary); a new primary demotes the old. */
export function withImage(
  images: readonly ReferenceImage[],
  input: ImageInput,
  newImageId: () => string,
): ReferenceImage[] {
  const current = images.find((image) => image.isPrimary)?.url;
  const next = images.some((image) => image.url === input.url)
    ? [...images]
    : [...images, { id: newImageId(), url: input.url, isPrimary: false }];
  if (next.length > MAX_REFERENCE_IMAGES) throw tooManyImages('url');
  return withOnePrimary(next, input.isPrimary === true ? input.url : current);
}

/** Any platform sees verified claims; only the owner sees the others. */
export function isVisibleTo(claim: Pick<Claim, 'ownerPlatformId' | 'status'>, platformId: string): boolean {
  return claim.ownerPlatformId === platformId || claim.status === 'verified';
}

/**
 * Verification applies to a pending claim, or re-grades a verified one (SILVER to GOLD after an
 * extra proof). A rejected or suspended claim cannot be verified.
 */
export function assertVerifiable(claim: Claim): void {
  if (claim.status !== 'pending' && claim.status !== 'verified') {
    throw new AppError('INVALID_STATE', `Claim ${claim.id} is ${claim.status} and cannot be verified`, {
      details: { status: claim.status },
    });
  }
}

/** Only a pending claim can be rejected: a verified one may carry a box and licenses. */
export function assertRejectable(claim: Claim): void {
  if (claim.status !== 'pending') {
    throw new AppError('INVALID_STATE', `Claim ${claim.id} is ${claim.status} and cannot be rejected`, {
      details: { status: claim.status },
    });
  }
}

/** The claim after a completed verification. */
export function verified(
  claim: Claim,
  input: { tier: 'SILVER' | 'GOLD'; method?: string | undefined; documents?: string[] | undefined },
  now: Date,
): Claim {
  return {
    ...claim,
    status: 'verified',
    verificationTier: input.tier,
    verifiedAt: claim.verifiedAt ?? now,
    verification: {
      method: input.method ?? (input.tier === 'GOLD' ? 'identity_provider_with_proof' : 'identity_provider'),
      completedAt: now,
      documents: input.documents ?? [],
    },
    updatedAt: now,
  };
}
