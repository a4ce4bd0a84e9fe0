import { newId } from '@svc/ids';
import type { Clock } from '@svc/clock';
import { errors } from '@svc/errors';
import { generateApiKey, hashApiKey, ROTATION_OVERLAP_MS, type Environment } from './api-key';
import type { ApiKeyStore, NewApiKey, PlatformStore } from './ports';

export interface IssuedKey {
  id: string;
  key: string;
  environment: Environment;
  createdAt: Date;
}

function newKey(platformId: string, environment: Environment, now: Date): { record: NewApiKey; key: string } {
  const key = generateApiKey(environment);
  const id = newId('key');
  return {
    key,
    record: { id, platformId, environment, keyHash: hashApiKey(key), budgetId: id, createdAt: now },
  };
}

/** Issues a platform a new key; the secret is returned here once and only its hash is kept. */
export async function issueApiKey(
  deps: { platforms: PlatformStore; keys: ApiKeyStore; clock: Clock },
  input: { platformId: string; environment: Environment },
): Promise<IssuedKey> {
  const platform = await deps.platforms.find(input.platformId);
  if (platform === null) throw errors.notFound('Platform', input.platformId);
  const { key, record } = newKey(platform.id, input.environment, deps.clock.now());
  await deps.keys.insert(record);
  return { id: record.id, key, environment: record.environment, createdAt: record.createdAt };
}

/** Registers a key chosen by the deployment (SVC_BOOTSTRAP_KEY) for a platform, once. */
export async function registerKnownKey(
  deps: { keys: ApiKeyStore; clock: Clock },
  input: { platformId: string; key: string; environment: Environment; keyId: string },
): Promise<void> {
  if ((await deps.keys.find(input.keyId)) !== null) return;
  await deps.keys.insert({
    id: input.keyId,
    platformId: input.platformId,
    environment: input.environment,
    keyHash: hashApiKey(input.key),
    budgetId: input.keyId,
    createdAt: deps.clock.now(),
  });
}

export interface RotatedKey {
  id: string;
  key: string;
  previousKeyId: string;
  previousKeyExpiresAt: Date;
}

/** Rotation: a successor is issued and the old key keeps working for 24 hours. */
export async function rotateApiKey(
  deps: { keys: ApiKeyStore; clock: Clock },
  keyId: string,
): Promise<RotatedKey> {
  const old = await deps.keys.find(keyId);
  if (old === null) throw errors.notFound('Key', keyId);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const { key, record } = newKey(old.platformId, old.environment, now);
  const outcome = await deps.keys.rotate(keyId, record, expiresAt);
  if (outcome === 'not_found') throw errors.notFound('Key', keyId);
  if (outcome === 'not_active') {
    throw errors.invalidState(`Key ${keyId} was already rotated or revoked; rotate its successor instead`);
  }
  return { id: record.id, key, previousKeyId: keyId, previousKeyExpiresAt: expiresAt };
}

export interface RevokedKey {
  revokedKeyId: string;
  id: string;
  key: string;
}

/** Revocation: the key stops working at once and a successor is issued. */
export async function revokeApiKey(
  deps: { keys: ApiKeyStore; clock: Clock },
  keyId: string,
): Promise<RevokedKey> {
  const old = await deps.keys.find(keyId);
  if (old === null) throw errors.notFound('Key', keyId);
  const now = deps.clock.now();
  const { key, record } = newKey(old.platformId, old.environment, now);
  const outcome = await deps.keys.revoke(keyId, record, now);
  if (outcome === 'not_found') throw errors.notFound('Key', keyId);
  if (outcome === 'already_revoked') throw errors.invalidState(`Key ${keyId} is already revoked`);
  return { revokedKeyId: keyId, id: record.id, key };
}
