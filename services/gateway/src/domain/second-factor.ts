import { createHash, createHmac, randomBytes } from 'node:crypto';
import { randomBase62 } from '@svc/ids';

// The second factor (docs/spec/contracts.md §17): TOTP (RFC 6238: HMAC-SHA-1, 6 digits, 30 s steps,
// the authenticator apps' defaults) and one-time recovery codes. TOTP is the few lines of RFC 4226
// and 6238 on node:crypto rather than otplib: otplib 13's CommonJS build requires ESM-only packages
// (@scure/base, @noble/hashes) that jest cannot load on Node 20. The tests check it against the RFC's
// test vectors and against otplib itself (test/fixtures/otp.ts).

/** The issuer an authenticator app shows beside the account. */
export const TOTP_ISSUER = 'Identity Protection';
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** How many recovery codes an enrolment hands out (each usable once). */
export const RECOVERY_CODE_COUNT = 10;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Base32 (RFC 4648; case, spaces and padding ignored); null when a character is not base32. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new TOTP secret (160 bits, base32, as RFC 4226 recommends). */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** The otpauth:// URI an authenticator app reads (as a QR code or pasted). */
export function totpUri(secret: string, label: string): string {
  const issuer = encodeURIComponent(TOTP_ISSUER);
  return `otpauth://totp/${issuer}:${encodeURIComponent(label)}?secret=${secret}&issuer=${issuer}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`;
}

/** The code of time step `step` (RFC 4226 dynamic truncation of HMAC-SHA-1 over the step). */
export function totpCode(key: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

/**
 * The time step `code` is valid for at `now` (one step of clock drift either way), or null. A
 * step at or before `afterStep` is refused: each code signs in once.
 */
export function totpStepOf(secret: string, code: string, now: Date, afterStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = base32Decode(secret);
  if (key === null || key.length === 0) return null;
  const current = Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
  for (const step of [current, current - 1, current + 1]) {
    if (afterStep !== null && step <= afterStep) continue;
    const expected = totpCode(key, step);
    if (timingSafeEqualText(expected, code)) return step;
  }
  return null;
}

function timingSafeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Ten recovery codes, `xxxxx-xxxxx` (base62, ~59 bits each), shown once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${randomBase62(5)}-${randomBase62(5)}`);
}

/** The stored form of a recovery code (dashes and spaces do not matter; a fast hash is enough for 59 random bits behind the sign-in throttle). */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code.replace(/[\s-]/g, '')).digest('hex');
}
