import type { KeyScope } from '@svc/contracts/gateway';
import { newId } from '@svc/ids';
import type { Clock } from '@svc/clock';
import { AppError, errors } from '@svc/errors';
import { generateApiKey, hashApiKey, ROTATION_OVERLAP_MS, type Environment } from './api-key';
import type { ApiKeyStore, NewApiKey, PlatformStore, TransactionRunner } from './ports';

export interface IssuedKey {
  id: string;
  key: string;
  name: string | null;
  scope: KeyScope;
  environment: Environment;
  createdAt: Date;
}

function newKey(
  platformId: string,
  environment: Environment,
  now: Date,
  name: string | null,
  scope: KeyScope,
): { record: NewApiKey; key: string } {
  const key = generateApiKey(environment);
  const id = newId('key');
  return {
    key,
    record: {
      id,
      platformId,
      name,
      last4: key.slice(-4),
      scope,
      environment,
      keyHash: hashApiKey(key),
      budgetId: id,
      createdAt: now,
    },
  };
}

/** Active keys a platform may hold per environment unless MAX_ACTIVE_API_KEYS says otherwise. */
export const DEFAULT_MAX_ACTIVE_API_KEYS = 20;

/**
 * Issues a platform a new key; the secret is returned here once and only its hash is kept.
 * A platform holds at most `maxActiveApiKeys` working keys per environment (issue #30: keys were
 * unbounded): counted under the platform's issuing lock, so two issues at the limit less one do
 * not both pass. Rotation and revocation replace a key and are never refused.
 */
export async function issueApiKey(
  deps: {
    db: TransactionRunner;
    platforms: PlatformStore;
    keys: ApiKeyStore;
    clock: Clock;
    maxActiveApiKeys?: number | undefined;
  },
  input: {
    platformId: string;
    environment: Environment;
    name?: string | undefined;
    scope?: KeyScope | undefined;
  },
): Promise<IssuedKey> {
  const limit = deps.maxActiveApiKeys ?? DEFAULT_MAX_ACTIVE_API_KEYS;
  return deps.db.transaction(async (tx) => {
    const platform = await deps.platforms.find(tx, input.platformId);
    if (platform === null) throw errors.notFound('Platform', input.platformId);
    await deps.keys.lockIssuing(tx, platform.id);
    const now = deps.clock.now();
    const used = await deps.keys.countActive(tx, platform.id, input.environment, now);
    if (used >= limit) {
      throw new AppError(
        'FORBIDDEN',
        `Active API key limit reached: at most ${limit} active ${input.environment} keys per platform; revoke a key you no longer use, or rotate one, instead of issuing another`,
        { details: { quota: 'activeApiKeys', limit, used } },
      );
    }
    const { key, record } = newKey(
      platform.id,
      input.environment,
      now,
      input.name ?? null,
      input.scope ?? 'full',
    );
    await deps.keys.insert(tx, record);
    return {
      id: record.id,
      key,
      name: record.name,
      scope: record.scope,
      environment: record.environment,
      createdAt: record.createdAt,
    };
  });
}

/** Registers a key chosen by the deployment (SVC_BOOTSTRAP_KEY) for a platform, once. */
export async function registerKnownKey(
  deps: { db: TransactionRunner; keys: ApiKeyStore; clock: Clock },
  input: { platformId: string; key: string; environment: Environment; keyId: string },
): Promise<void> {
  if ((await deps.keys.find(deps.db, input.keyId)) !== null) return;
  await deps.keys.insert(deps.db, {
    id: input.keyId,
    platformId: input.platformId,
    name: 'Bootstrap key',
    last4: input.key.slice(-4),
    scope: 'full',
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

/**
 * Told once a key's change has committed, so that this replica forgets what it knew of the key
 * before its next request (the other replicas hear of it by notification; ADR 0025).
 */
export type KeysChanged = () => void;

/** Rotation: a successor is issued and the old key keeps working for 24 hours. */
export async function rotateApiKey(
  deps: { db: TransactionRunner; keys: ApiKeyStore; clock: Clock; keysChanged?: KeysChanged },
  keyId: string,
): Promise<RotatedKey> {
  // The old key is locked while its successor is issued: two rotations never both succeed.
  const rotated = await deps.db.transaction(async (tx) => {
    const old = await deps.keys.find(tx, keyId, { lock: true });
    if (old === null) throw errors.notFound('Key', keyId);
    // A key already rotated or revoked has a successor; rotate that one instead.
    if (old.revokedAt !== null || old.replacedBy !== null) {
      throw errors.invalidState(`Key ${keyId} was already rotated or revoked; rotate its successor instead`);
    }
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    const { key, record } = newKey(old.platformId, old.environment, now, old.name, old.scope);
    // The successor shares the old key's budget (the first key of the chain).
    await deps.keys.insert(tx, { ...record, budgetId: old.budgetId });
    await deps.keys.markRotated(tx, keyId, expiresAt, record.id);
    return { id: record.id, key, previousKeyId: keyId, previousKeyExpiresAt: expiresAt };
  });
  deps.keysChanged?.();
  return rotated;
}

export interface RevokedKey {
  revokedKeyId: string;
  id: string;
  key: string;
}

/** Revocation: the key stops working at once and a successor is issued. */
export async function revokeApiKey(
  deps: { db: TransactionRunner; keys: ApiKeyStore; clock: Clock; keysChanged?: KeysChanged },
  keyId: string,
): Promise<RevokedKey> {
  const revoked = await deps.db.transaction(async (tx) => {
    const old = await deps.keys.find(tx, keyId, { lock: true });
    if (old === null) throw errors.notFound('Key', keyId);
    if (old.revokedAt !== null) throw errors.invalidState(`Key ${keyId} is already revoked`);
    const now = deps.clock.now();
    const { key, record } = newKey(old.platformId, old.environment, now, old.name, old.scope);
    await deps.keys.insert(tx, { ...record, budgetId: old.budgetId });
    await deps.keys.markRevoked(tx, keyId, now, record.id);
    return { revokedKeyId: keyId, id: record.id, key };
  });
  deps.keysChanged?.();
  return revoked;
}

/**
 * Revocation without a successor (the dashboard, #32): the key stops working at once, nothing is
 * issued in its place. An active key or one rotated and still in its overlap may be revoked (the
 * overlap need not run its 24 hours when the old secret leaked); a revoked or expired one may not.
 */
export async function revokeApiKeyOnly(
  deps: { db: TransactionRunner; keys: ApiKeyStore; clock: Clock; keysChanged?: KeysChanged },
  keyId: string,
): Promise<{ revokedKeyId: string; revokedAt: Date }> {
  const revoked = await deps.db.transaction(async (tx) => {
    const old = await deps.keys.find(tx, keyId, { lock: true });
    if (old === null) throw errors.notFound('Key', keyId);
    if (old.revokedAt !== null) throw errors.invalidState(`Key ${keyId} is already revoked`);
    const now = deps.clock.now();
    if (old.expiresAt !== null && old.expiresAt.getTime() <= now.getTime()) {
      throw errors.invalidState(`Key ${keyId} has already expired after its rotation`);
    }
    await deps.keys.markRevoked(tx, keyId, now, null);
    return { revokedKeyId: keyId, revokedAt: now };
  });
  deps.keysChanged?.();
  return revoked;
}
