import { readName } from '@svc/contracts/common';
import { AppError } from '@svc/errors';
import { httpUrlProblem } from '@svc/fetch-guard';

// A check's name and image URL as the interface accepts them, and the picture errors a batch item may carry.

/** What a batch item's picture can fail with and the item still answer (the batch item's `error`). */
export const ITEM_IMAGE_ERROR_CODES = ['INVALID_IMAGE_URL', 'IMAGE_TOO_LARGE'] as const;
export interface ItemImageError {
  code: (typeof ITEM_IMAGE_ERROR_CODES)[number];
  message: string;
}

export function isItemImageError(err: AppError): err is AppError & ItemImageError {
  return (ITEM_IMAGE_ERROR_CODES as readonly string[]).includes(err.code);
}

/** The name, trimmed; INVALID_NAME (400) when it is not a name (docs/spec/contracts.md §2). */
export function checkedName(value: string, field = 'name'): string {
  const read = readName(value);
  if ('problem' in read) {
    throw new AppError('INVALID_NAME', `${field}: ${read.problem}`, {
      details: { field, reason: read.problem },
    });
  }
  return read.name;
}

/** INVALID_IMAGE_URL (422) unless the value is an absolute http(s) URL (the fetch guard checks the rest). */
export function checkImageUrl(value: string, field = 'imageUrl'): string {
  const problem = httpUrlProblem(value);
  if (problem !== null) {
    throw new AppError('INVALID_IMAGE_URL', `${field}: ${problem}`, { details: { field, reason: problem } });
  }
  return value;
}
