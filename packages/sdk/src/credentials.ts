import {
  type JWKS,
  CredentialVerificationError,
  type VerifiedCredential,
  type VerifyCredentialOptions,
  type VerifiedStatusList,
} from './credential-model';
import type { KeyCache } from './key-cache';
import { isoOf, withoutTrailingSlash } from './jws-parsing';
import { verifyCompact } from './jws-verification';
import { verifiedListFor } from './status-list-decoding';
import { licenseClaimsOf } from './credential-claims';
export * from './credential-model';
export { createKeyCache, type KeyCache, type KeyCacheOptions } from './key-cache';

// Offline checks of the proofs of docs/spec/contracts.md §16: a license credential (compact JWS, EdDSA,
// `typ` license+jwt), the status list that revokes it (IETF Token Status List, `typ`
// statuslist+jwt) and the key set both are signed with (`<iss>/.well-known/jwks.json`).

/**
 * Checks a license credential offline: Ed25519 signature by a key of `options.keys`, `typ`,
 * issuer, validity period and, when `options.statusList` is given, its revocation bit. Returns
 * the license, or throws `CredentialVerificationError` with the failed check's `reason`.
 */
export async function verifyLicenseCredential(
  credential: string,
  options: VerifyCredentialOptions,
): Promise<VerifiedCredential> {
  const now = (options.now ?? new Date()).getTime() / 1000;
  const tolerance = options.clockToleranceSeconds ?? 0;
  const { header, payload, kid } = await verifyCompact(credential, options.keys, 'malformed');
  if (header.typ !== 'license+jwt') {
    throw new CredentialVerificationError('wrong_type', `typ is ${String(header.typ)}, not license+jwt`);
  }
  const claims = licenseClaimsOf(payload);
  const issuer = claims.iss;
  if (options.issuer !== undefined && withoutTrailingSlash(options.issuer) !== withoutTrailingSlash(issuer)) {
    throw new CredentialVerificationError('wrong_issuer', `issued by ${issuer}, not ${options.issuer}`);
  }
  if (claims.nbf > now + tolerance) {
    throw new CredentialVerificationError('not_yet_valid', `valid from ${isoOf(claims.nbf)}`);
  }
  if (claims.exp <= now - tolerance) {
    throw new CredentialVerificationError('expired', `expired at ${isoOf(claims.exp)}`);
  }
  const checked = [
    `signature by key ${kid}`,
    // Without an expected issuer, only the key set vouches for it: say so.
    options.issuer === undefined ? `issuer ${issuer} (as named; none was expected)` : `issuer ${issuer}`,
    `valid until ${isoOf(claims.exp)}`,
  ];
  if (options.statusList !== undefined) {
    const list = await verifiedListFor(options.statusList, options.keys, now, tolerance);
    if (list.uri !== claims.status.uri) {
      throw new CredentialVerificationError(
        'status_list_invalid',
        `the list given is ${list.uri}, the credential's is ${claims.status.uri}`,
      );
    }
    if (list.statusOf(claims.status.idx) === 1) {
      throw new CredentialVerificationError(
        'revoked',
        `index ${claims.status.idx} is set in status list ${list.uri} at ${list.issuedAt.toISOString()}`,
      );
    }
    checked.push(`not revoked in status list ${list.uri} at ${list.issuedAt.toISOString()}`);
  }
  return {
    license: {
      id: claims.sub,
      boxId: claims.boxId,
      claimId: claims.claimId,
      identityName: claims.identityName,
      platformId: claims.platformId,
      tier: claims.tier,
      allowedUses: [...claims.allowedUses],
      validFrom: new Date(claims.nbf * 1000),
      expiresAt: new Date(claims.exp * 1000),
    },
    keyId: kid,
    issuer,
    status: claims.status,
    checked,
  };
}

/**
 * Checks a status list JWT offline (signature by a key of `keys`, `typ` statuslist+jwt, not
 * expired, one bit per status) and decodes it. Any failure throws `CredentialVerificationError`
 * with `reason` status_list_invalid.
 */
export async function verifyStatusList(
  statusListJwt: string,
  options: { keys: JWKS; now?: Date; clockToleranceSeconds?: number },
): Promise<VerifiedStatusList> {
  const now = (options.now ?? new Date()).getTime() / 1000;
  return verifiedListFor(statusListJwt, options.keys, now, options.clockToleranceSeconds ?? 0);
}

/**
 * Checks a credential against its issuer's cached keys and status list (fetched through
 * `cache` when absent or stale, once per key set and per list): `verifyLicenseCredential` with
 * the issuer fixed to the cache's.
 */
export async function checkLicenseCredential(
  credential: string,
  cache: KeyCache,
  options: { now?: Date; clockToleranceSeconds?: number } = {},
): Promise<VerifiedCredential> {
  const verify = (keys: JWKS, statusList?: string) =>
    verifyLicenseCredential(credential, { ...options, keys, issuer: cache.issuer, statusList });
  let keys = await cache.keys();
  // Signature, issuer and dates first, so only a status uri the issuer signed is ever fetched.
  const signed = await verify(keys).catch(async (err: unknown) => {
    // A key newer than the cached set: fetch the set once more before refusing.
    if (!(err instanceof CredentialVerificationError) || err.reason !== 'unknown_key') throw err;
    keys = await cache.refreshKeys();
    return verify(keys);
  });
  // Verified already: this second call skips the signature and checks the status bit.
  return verify(keys, await cache.statusList(signed.status.uri));
}
