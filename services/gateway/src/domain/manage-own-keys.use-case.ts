import type { KeyScope } from '@svc/contracts/gateway';
import type { Clock } from '@svc/clock';
import { errors } from '@svc/errors';
import type { Environment } from './api-key';
import {
  issueApiKey,
  revokeApiKeyOnly,
  rotateApiKey,
  type IssuedKey,
  type KeysChanged,
  type RotatedKey,
} from './issue-api-key.use-case';
import type { ApiKeyRecord, ApiKeyStore, PlatformStore, TransactionRunner } from './ports';

type KeyDeps = {
  db: TransactionRunner;
  platforms: PlatformStore;
  keys: ApiKeyStore;
  clock: Clock;
  keysChanged?: KeysChanged;
  /** MAX_ACTIVE_API_KEYS (issueApiKey's default when unset). */
  maxActiveApiKeys?: number | undefined;
};

// A platform's developer manages the platform's own keys from the dashboard with the operator
// API's use cases; another platform's key is not found (docs/spec/contracts.md §6).
async function requireOwnKey(deps: KeyDeps, platformId: string, keyId: string): Promise<void> {
  const key = await deps.keys.find(deps.db, keyId);
  if (key === null || key.platformId !== platformId) throw errors.notFound('Key', keyId);
}

/** The tenant's keys, newest first. */
export function listOwnKeys(deps: KeyDeps, platformId: string): Promise<ApiKeyRecord[]> {
  return deps.keys.listForPlatform(deps.db, platformId);
}

/** Issues the tenant a key of this deployment's environment, named if a name is given. */
export function issueOwnKey(
  deps: KeyDeps,
  input: {
    platformId: string;
    environment: Environment;
    name?: string | undefined;
    scope?: KeyScope | undefined;
  },
): Promise<IssuedKey> {
  return issueApiKey(deps, input);
}

/** Rotates one of the tenant's keys (24 h overlap). */
export async function rotateOwnKey(deps: KeyDeps, platformId: string, keyId: string): Promise<RotatedKey> {
  await requireOwnKey(deps, platformId, keyId);
  return rotateApiKey(deps, keyId);
}

/** Revokes one of the tenant's keys at once; nothing replaces it (rotation is for that). */
export async function revokeOwnKey(
  deps: KeyDeps,
  platformId: string,
  keyId: string,
): Promise<{ revokedKeyId: string; revokedAt: Date }> {
  await requireOwnKey(deps, platformId, keyId);
  return revokeApiKeyOnly(deps, keyId);
}
