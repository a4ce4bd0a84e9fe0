import { readFileSync } from 'node:fs';
import type { Clock } from '@svc/clock';
import type { Logger } from '@svc/logger';
import type { Queryable } from '@svc/ports';
import type { LicensingConfig } from './config';
import { GeneratedKeyRepository } from './data-access/credential.repository';
import {
  generatePrivateJwk,
  retiredKeysFrom,
  signingKeyFrom,
  SigningKeyError,
  type KeyRing,
  type RetiredJwk,
} from './domain/signing-keys';

type KeySettings = Pick<
  LicensingConfig,
  | 'LICENSE_SIGNING_KEY'
  | 'LICENSE_SIGNING_KEY_FILE'
  | 'LICENSE_RETIRED_KEYS_FILE'
  | 'LICENSE_RETIRED_KEYS'
  | 'SVC_ENVIRONMENT'
>;

/** The retired keys' text, from the file or the variable (not both), or undefined. */
function retiredKeysText(config: KeySettings): string | undefined {
  if (config.LICENSE_RETIRED_KEYS !== undefined && config.LICENSE_RETIRED_KEYS_FILE !== undefined) {
    throw new SigningKeyError('set LICENSE_RETIRED_KEYS or LICENSE_RETIRED_KEYS_FILE, not both');
  }
  if (config.LICENSE_RETIRED_KEYS_FILE !== undefined) {
    return readSetting(config.LICENSE_RETIRED_KEYS_FILE, 'LICENSE_RETIRED_KEYS_FILE');
  }
  return config.LICENSE_RETIRED_KEYS;
}

function readSetting(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new SigningKeyError(
      `${what} ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

/** The configured key's text, or undefined when none is configured; both settings at once are refused. */
export function configuredKeyText(config: KeySettings): string | undefined {
  if (config.LICENSE_SIGNING_KEY !== undefined && config.LICENSE_SIGNING_KEY_FILE !== undefined) {
    throw new SigningKeyError('set LICENSE_SIGNING_KEY or LICENSE_SIGNING_KEY_FILE, not both');
  }
  if (config.LICENSE_SIGNING_KEY_FILE !== undefined) {
    return readSetting(config.LICENSE_SIGNING_KEY_FILE, 'LICENSE_SIGNING_KEY_FILE');
  }
  return config.LICENSE_SIGNING_KEY;
}

/**
 * Checked before anything starts: production needs a configured key (a file or a secret, never a
 * generated one), and a configured key must be an Ed25519 private key, the retired file readable.
 */
export async function assertSigningKeyConfig(config: KeySettings): Promise<void> {
  const text = configuredKeyText(config);
  if (text !== undefined) await signingKeyFrom(text);
  if (text === undefined && config.SVC_ENVIRONMENT === 'production') {
    throw new SigningKeyError(
      'SVC_ENVIRONMENT=production needs a license signing key: set LICENSE_SIGNING_KEY_FILE (or LICENSE_SIGNING_KEY) to an Ed25519 private key, see services/licensing/README.md, Signing keys',
    );
  }
  const retired = retiredKeysText(config);
  if (retired !== undefined) retiredKeysFrom(retired);
}

/**
 * The key ring at start: the configured key, or (sandbox only) the key this deployment generated
 * and stored in its database the first time, shared by its replicas and restarts; plus the
 * retired keys file. The private key is imported once here; it is never logged.
 */
export async function loadKeyRing(
  config: KeySettings,
  db: Queryable,
  clock: Clock,
  logger: Logger,
): Promise<KeyRing> {
  await assertSigningKeyConfig(config);
  const retiredText = retiredKeysText(config);
  const retired: RetiredJwk[] = retiredText === undefined ? [] : retiredKeysFrom(retiredText);
  const text = configuredKeyText(config);
  if (text !== undefined) {
    const current = await signingKeyFrom(text);
    logger.info({ kid: current.kid, retired: retired.length }, 'license signing key configured');
    return { current, retired };
  }
  const store = new GeneratedKeyRepository();
  const stored = (await store.find(db)) ?? (await store.keep(db, await generatePrivateJwk(), clock.now()));
  const current = await signingKeyFrom(JSON.stringify(stored));
  logger.warn(
    { kid: current.kid },
    'no LICENSE_SIGNING_KEY configured: signing with the key generated for this sandbox deployment (kept in its database)',
  );
  return { current, retired };
}
