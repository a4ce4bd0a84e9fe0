// Licensing and the SDK are not dependencies of the bench package (adding them would change the
// lockfile): their built code is loaded from the workspace by path at run time, and typed here by
// the little of it the bench uses (a type import of their build would fail `make typecheck`
// before a build). `make bench-proofs` builds them first.
import type { KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { MigrationSource, Queryable } from '@svc/storage';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const load = createRequire(__filename);

/** Licensing's SigningKey (domain/signing-keys.ts). */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };
}

/** Licensing's License (domain/license.ts), as far as the bench reads it. */
export type License = { id: string; status: string } & Record<string, unknown>;

export interface StatusEntry {
  listId: number;
  idx: number;
}

export interface StoredCredential {
  licenseId: string;
  kid: string;
  credential: string;
  issuedAt: Date;
  expiresAt: Date;
}

/** Licensing's CredentialStore (domain/ports.ts). */
export interface CredentialStore {
  statusEntryOf(tx: Queryable, licenseId: string): Promise<StatusEntry>;
  insert(tx: Queryable, credential: StoredCredential): Promise<void>;
  newest(q: Queryable, licenseId: string): Promise<StoredCredential | null>;
  invalidIndexes(q: Queryable, listId: number, now: Date): Promise<number[]>;
}

export interface BoxView {
  boxId: string;
  claimId: string;
  ownerPlatformId: string;
  identityName: string;
  policy: string;
  policyConfig: Record<string, unknown>;
  royaltyRate: number;
  updatedAt: Date;
  version: number;
  deletedAt: Date | null;
}

/** The modules of licensing's build the bench calls. */
export interface Licensing {
  licensingMigrations(): MigrationSource[];
  requestLicense(
    ctx: Record<string, unknown>,
    caller: { platformId: string; platformName: string; environment: 'sandbox' | 'production' },
    input: { boxId: string; tier: string; useCase: string },
  ): Promise<{ license: License | null }>;
  signCredential(
    key: SigningKey,
    issuer: string,
    license: License,
    entry: StatusEntry,
    now: Date,
  ): Promise<string>;
  signingKeyFrom(text: string): Promise<SigningKey>;
  BoxProjectionRepository: new () => { upsert(tx: Queryable, box: BoxView): Promise<void> };
  LicenseRequestRepository: new () => object;
  LicenseRepository: new () => object;
  CredentialRepository: new () => CredentialStore;
}

export function licensing(): Licensing {
  const module = (relative: string) =>
    load(path.join(ROOT, 'services', 'licensing', 'dist', relative)) as Record<string, unknown>;
  return {
    ...module('start.js'),
    ...module('domain/request-license.use-case.js'),
    ...module('domain/credentials.js'),
    ...module('domain/signing-keys.js'),
    ...module('data-access/box-projection.repository.js'),
    ...module('data-access/license-request.repository.js'),
    ...module('data-access/license.repository.js'),
    ...module('data-access/credential.repository.js'),
  } as unknown as Licensing;
}

/** Licensing's transparency consumer (entry-points/messaging/transparency.consumer.ts). */
export interface TransparencyConsumer {
  transparencySubscription(deps: {
    db: unknown;
    log: unknown;
    clock: unknown;
    key(): unknown;
    licenses: { recordLogEntries(tx: Queryable, entries: ReadonlyMap<string, unknown>): Promise<void> };
    outbox(tx: Queryable, ...events: unknown[]): Promise<void>;
    eventsCommitted(): void;
  }): { prefetch?: number; handler: (envelope: unknown, delivery: unknown) => Promise<void> };
  TRANSPARENCY_BATCH: number;
}

export function transparencyConsumer(): TransparencyConsumer {
  return load(
    path.join(ROOT, 'services', 'licensing', 'dist', 'entry-points', 'messaging', 'transparency.consumer.js'),
  ) as TransparencyConsumer;
}

/** @svc/ids as licensing resolves it. */
export function newIdOfLicensing(): (prefix: 'lic' | 'req') => string {
  const fromLicensing = createRequire(path.join(ROOT, 'services', 'licensing', 'package.json'));
  return (fromLicensing('@svc/ids') as { newId(prefix: string): string }).newId;
}

export interface Jwks {
  keys: Record<string, unknown>[];
}

/** The SDK's offline checks (packages/sdk/src/credentials.ts). */
export interface Sdk {
  createKeyCache(
    issuerBaseUrl: string,
    options: { fetch: typeof fetch },
  ): { readonly issuer: string; keys(): Promise<Jwks> };
  verifyLicenseCredential(
    credential: string,
    options: { keys: Jwks; issuer?: string },
  ): Promise<{ keyId: string; license: { id: string } }>;
}

export function sdk(): Sdk {
  return load(path.join(ROOT, 'packages', 'sdk', 'dist', 'index.js')) as Sdk;
}

/** The jose that the SDK itself uses (packages/sdk's dependency). */
export interface Jose {
  compactVerify(
    jws: string,
    key: unknown,
    options?: { algorithms?: string[] },
  ): Promise<{ payload: Uint8Array }>;
  importJWK(jwk: Record<string, unknown>, alg?: string): Promise<unknown>;
}

export function jose(): Jose {
  const fromSdk = createRequire(path.join(ROOT, 'packages', 'sdk', 'package.json'));
  return fromSdk('jose') as Jose;
}
