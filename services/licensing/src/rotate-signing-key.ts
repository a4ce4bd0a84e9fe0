import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  generatePrivateJwk,
  retire,
  retiredKeysFrom,
  signingKeyFrom,
  type RetiredJwk,
} from './domain/signing-keys';

/** The longest term a license is requested or renewed for (contracts: `term` 1 to 36 months). */
export const LONGEST_TERM_MONTHS = 36;

/**
 * How long a retired key stays published by default: the longest license term (a credential runs
 * to the end of its license's period) plus a day of margin.
 */
export const DEFAULT_KEEP_DAYS = LONGEST_TERM_MONTHS * 31 + 1;

export interface Rotation {
  /** kid of the key that signs from the next start. */
  newKid: string;
  /** kid of the key retired, listed in the JWKS until `notAfter`; null for a first key. */
  retiredKid: string | null;
  notAfter: string | null;
}

/** Writes `text` to `path` with `mode`, through a temporary file renamed over it (no half-written key). */
function writeAtomically(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode, flag: 'w' });
  renameSync(temporary, path);
}

/**
 * One rotation (docs/adr/0029, Rotation runbook): a new Ed25519 private key (JWK with its
 * thumbprint as kid) replaces `keyFile` (mode 0600), and the old key's public JWK is appended to
 * `retiredFile` with `notAfter` = now + `keepDays`. The service signs with the new key and lists
 * both once restarted with the two files.
 */
export async function rotateSigningKey(options: {
  keyFile: string;
  retiredFile: string;
  keepDays?: number;
  now?: Date;
}): Promise<Rotation> {
  const keepDays = options.keepDays ?? DEFAULT_KEEP_DAYS;
  if (!Number.isFinite(keepDays) || keepDays < 0) throw new Error('--keep-days must be a number of days ≥ 0');
  const now = options.now ?? new Date();
  if (!existsSync(options.keyFile)) {
    // The first key of a deployment: nothing to retire yet.
    const first = await generatePrivateJwk();
    if (!existsSync(options.retiredFile)) writeAtomically(options.retiredFile, '[]\n', 0o644);
    writeAtomically(options.keyFile, `${JSON.stringify(first)}\n`, 0o600);
    return { newKid: first.kid, retiredKid: null, notAfter: null };
  }
  const old = await signingKeyFrom(readFileSync(options.keyFile, 'utf8'));
  const retired: RetiredJwk[] = existsSync(options.retiredFile)
    ? retiredKeysFrom(readFileSync(options.retiredFile, 'utf8'))
    : [];
  const next = await generatePrivateJwk();
  const notAfter = new Date(now.getTime() + keepDays * 86_400_000);
  // Retired keys that no credential needs any more are dropped; the old key is added.
  const kept = [...retired.filter((k) => Date.parse(k.notAfter) > now.getTime() && k.kid !== old.kid)];
  kept.push(retire(old, notAfter));
  // The retired file first: if the key write fails, the old key still signs and is listed twice at worst.
  writeAtomically(options.retiredFile, `${JSON.stringify(kept, null, 2)}\n`, 0o644);
  writeAtomically(options.keyFile, `${JSON.stringify(next)}\n`, 0o600);
  return { newKid: next.kid, retiredKid: old.kid, notAfter: notAfter.toISOString() };
}

const USAGE =
  'usage: node services/licensing/dist/rotate-signing-key.js --key-file <path> --retired-file <path> [--keep-days <days>]';

/** The command line; prints the kids and when the old key leaves the JWKS, never a key. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'key-file': { type: 'string' },
        'retired-file': { type: 'string' },
        'keep-days': { type: 'string' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const keyFile = values['key-file'];
  const retiredFile = values['retired-file'];
  if (keyFile === undefined || retiredFile === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  try {
    const rotation = await rotateSigningKey({
      keyFile,
      retiredFile,
      ...(values['keep-days'] === undefined ? {} : { keepDays: Number(values['keep-days']) }),
    });
    process.stdout.write(
      rotation.retiredKid === null
        ? `first key ${rotation.newKid} in ${keyFile}; no key retired (${retiredFile}).\n`
        : `new key ${rotation.newKid} in ${keyFile}; retired ${rotation.retiredKid}, published until ${rotation.notAfter} (${retiredFile}).\n` +
            'Next: roll the two files out to every licensing replica and restart them; check GET /.well-known/jwks.json lists both kids.\n',
    );
    return 0;
  } catch (err) {
    process.stderr.write(`rotation failed: ${(err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
