import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 62 * 4 = 248: bytes at or above it are rejected so that every character is equally likely.
const UNBIASED_LIMIT = 248;

/** The id prefixes of docs/spec/contracts.md §7. */
export const ID_PREFIXES = [
  'claim',
  'box',
  'lic',
  'req',
  'viol',
  'gp',
  'appeal',
  'img',
  'plat',
  'key',
  'av',
  'we',
  'evt',
  'del',
  'usage',
  'led',
  // Dashboard accounts and sessions (ADR 0024).
  'acct',
  'sess',
  // The gateway's mail outbox (#30).
  'mail',
  'inv',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

// Random bytes are drawn from the CSPRNG 4 KiB at a time and handed out once each, as Node's own
// randomUUID does: one system call per about 180 ids instead of one per id (the webhook
// dispatcher makes a few ids per delivery).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const byte = pool[poolOffset] as number;
  pool[poolOffset] = 0;
  poolOffset += 1;
  return byte;
}

/** `length` random base62 characters from the system CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  // A fractional length would overshoot (2.5 gave 3 characters) and a negative one gave '': refuse both.
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`randomBase62 needs a whole, non-negative length, got ${length}`);
  }
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte >= UNBIASED_LIMIT) continue;
    out += ALPHABET[byte % 62];
  }
  return out;
}

/** A new id: `<prefix>_<22 random base62>` (about 131 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

/** True when `value` is an id with this prefix and a well-formed random part. */
export function isId(value: unknown, prefix: IdPrefix): value is string {
  return typeof value === 'string' && new RegExp(`^${prefix}_[0-9A-Za-z]{16,64}$`).test(value);
}
