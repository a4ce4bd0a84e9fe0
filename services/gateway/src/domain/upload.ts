import { randomBytes } from 'node:crypto';
import type { Clock } from '@svc/clock';
import { AppError } from '@svc/errors';
import type { TransactionRunner } from './ports';
import type { UploadFiles, UploadStore } from './account-ports';

/** The largest picture the dashboard accepts (5 MiB); detection fetches up to 10 MB. */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

export type PictureType = 'image/png' | 'image/jpeg' | 'image/webp';

/** The media types a client may declare: the pictures', or "some bytes" (the bytes decide). */
const DECLARABLE = new Set(['image/png', 'image/jpeg', 'image/webp', 'application/octet-stream']);

const WHAT_TO_SEND = 'Upload a PNG, JPEG or WebP picture.';

/** What the bytes are, by their magic numbers: PNG, JPEG or WebP, else null. */
export function sniffPictureType(bytes: Buffer): PictureType | null {
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return 'image/png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.length >= 12 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp';
  }
  return null;
}

function unsupported(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, {
    status: 415,
    details: { fields: [{ field: 'file', message }] },
  });
}

/** 413 for a body over the limit, with the field the dashboard shows it next to. */
export function uploadTooLarge(): AppError {
  const message = `The picture is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`;
  return new AppError('VALIDATION_ERROR', message, {
    status: 413,
    details: { fields: [{ field: 'file', message }] },
  });
}

/** Refuses a declared media type that is no picture, before the body is read. */
export function checkDeclaredType(contentType: string | undefined): void {
  const declared = contentType?.split(';')[0]?.trim().toLowerCase();
  if (declared === undefined || declared === '' || !DECLARABLE.has(declared)) {
    throw unsupported(
      `${declared ? `A ${declared} file is not accepted` : 'The file has no type'}. ${WHAT_TO_SEND}`,
    );
  }
}

/** An unguessable id: 144 random bits, URL-safe (the URL is the only thing that reads the picture). */
export function newUploadId(): string {
  return randomBytes(18).toString('base64url');
}

/** 403 when the account's live uploads would pass its quota (docs/spec/contracts.md §17). */
function overQuota(quota: 'uploads' | 'uploadBytes', limit: number, used: number): AppError {
  const what =
    quota === 'uploads' ? `${limit} pictures` : `${Math.round(limit / 1024 / 1024)} MiB of pictures`;
  return new AppError('FORBIDDEN', `An account may keep at most ${what} uploaded`, {
    details: {
      quota,
      limit,
      used,
      hint: 'Pictures no claim names are removed a day after their upload.',
    },
  });
}

/**
 * Stores a picture an account uploaded: its bytes must be a PNG, JPEG or WebP whatever the
 * declared type says, and at most MAX_UPLOAD_BYTES, within the account's quota (counted under a
 * per-account lock, so parallel uploads cannot pass it together). The bytes go to the file store
 * when there is one (before the row: a row always has its bytes), else into the row. Answers the id
 * it is served under.
 */
export async function storeUpload(
  deps: {
    db: TransactionRunner;
    uploads: UploadStore;
    uploadFiles?: UploadFiles | undefined;
    uploadQuota: { count: number; bytes: number };
    clock: Clock;
  },
  input: { platformId: string; accountId: string; bytes: Buffer },
): Promise<{ id: string; contentType: PictureType; sizeBytes: number }> {
  const { bytes } = input;
  if (bytes.length === 0) throw unsupported(`The file is empty. ${WHAT_TO_SEND}`);
  if (bytes.length > MAX_UPLOAD_BYTES) throw uploadTooLarge();
  const contentType = sniffPictureType(bytes);
  if (contentType === null) throw unsupported(`The file is not a PNG, JPEG or WebP picture. ${WHAT_TO_SEND}`);
  const id = newUploadId();
  await deps.db.transaction(async (tx) => {
    await deps.uploads.lockAccount(tx, input.accountId);
    const used = await deps.uploads.usage(tx, input.accountId);
    if (used.count + 1 > deps.uploadQuota.count)
      throw overQuota('uploads', deps.uploadQuota.count, used.count);
    if (used.bytes + bytes.length > deps.uploadQuota.bytes) {
      throw overQuota('uploadBytes', deps.uploadQuota.bytes, used.bytes);
    }
    if (deps.uploadFiles !== undefined) await deps.uploadFiles.write(id, bytes);
    await deps.uploads.insert(tx, {
      id,
      platformId: input.platformId,
      accountId: input.accountId,
      contentType,
      sizeBytes: bytes.length,
      bytes: deps.uploadFiles === undefined ? bytes : null,
      createdAt: deps.clock.now(),
    });
  });
  return { id, contentType, sizeBytes: bytes.length };
}

/** An upload's type and bytes, from the row or the file store; null when there is none. */
export async function readUpload(
  deps: { db: TransactionRunner; uploads: UploadStore; uploadFiles?: UploadFiles | undefined },
  id: string,
): Promise<{ contentType: string; bytes: Buffer } | null> {
  const upload = await deps.uploads.find(deps.db, id);
  if (upload === null) return null;
  const bytes = upload.bytes ?? (await deps.uploadFiles?.read(id)) ?? null;
  return bytes === null ? null : { contentType: upload.contentType, bytes };
}
