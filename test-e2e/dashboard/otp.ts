import { readFileSync } from 'node:fs';
import { createContext, runInContext } from 'node:vm';

// TOTP codes computed by otplib itself, independently of the gateway's own RFC 6238 code. otplib
// 13's CommonJS build requires ESM-only packages that jest cannot load on Node 20, so its
// self-contained browser bundle (dist/index.global.js) is run in a VM context instead.

interface Otplib {
  generateSync(options: { secret: string; epoch?: number }): string;
}

let loaded: Otplib | undefined;

function otplib(): Otplib {
  if (loaded === undefined) {
    const bundle = require.resolve('otplib').replace(/index\.c?js$/, 'index.global.js');
    const context = createContext({ crypto: globalThis.crypto, TextEncoder, TextDecoder, Uint8Array });
    runInContext(readFileSync(bundle, 'utf8'), context);
    loaded = (context as { otplib: Otplib }).otplib;
  }
  return loaded;
}

/** The TOTP code of `secret` (base32) at `at` (default now), as an authenticator app shows it. */
export function totpCodeAt(secret: string, at: Date = new Date()): string {
  return otplib().generateSync({ secret, epoch: Math.floor(at.getTime() / 1000) });
}
