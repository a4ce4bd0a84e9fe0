import type { JWK } from 'jose';

// What the offline checks of a credential and a status list take and answer, and how they fail.

/** A JSON Web Key Set as `GET /.well-known/jwks.json` serves it: Ed25519 public keys (`kty` OKP). */
export interface JWKS {
  keys: JWK[];
}

/** Why a credential or a status list was refused; each is distinct so a caller can act on it. */
export type CredentialFailureReason =
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_type'
  | 'wrong_issuer'
  | 'not_yet_valid'
  | 'expired'
  | 'revoked'
  | 'status_list_invalid';

/** A credential or status list that did not pass; `reason` says which check failed. */
export class CredentialVerificationError extends Error {
  override readonly name = 'CredentialVerificationError';
  constructor(
    readonly reason: CredentialFailureReason,
    message: string,
  ) {
    super(`${reason}: ${message}`);
  }
}

/** The license a credential stands for, with its period. */
export interface LicenseCredentialClaims {
  /** `lic_…` (the credential's `sub`). */
  id: string;
  boxId: string;
  claimId: string;
  identityName: string;
  platformId: string;
  tier: string;
  allowedUses: string[];
  validFrom: Date;
  expiresAt: Date;
}

/** A credential that passed every check, and what was checked, in words a page can show. */
export interface VerifiedCredential {
  license: LicenseCredentialClaims;
  keyId: string;
  issuer: string;
  /** Where the credential's revocation bit lives (checked only when a status list was given). */
  status: { idx: number; uri: string };
  /** E.g. "signature by key k1", "issuer https://…", "valid until …", "not revoked in status list … at …". */
  checked: string[];
}

export interface VerifyCredentialOptions {
  /** The issuer's key set (`<iss>/.well-known/jwks.json`). */
  keys: JWKS;
  /** The status list JWT the credential's `status.uri` serves; without it revocation is not checked. */
  statusList?: string;
  /** The expected `iss` (the deployment's public base URL); any issuer when absent. */
  issuer?: string;
  now?: Date;
  /** Slack allowed on `nbf` and `exp` for clocks that differ (default 0). */
  clockToleranceSeconds?: number;
}

/** A status list that passed its checks: `statusOf(idx)` is 1 when the credential at idx is no longer valid. */
export interface VerifiedStatusList {
  uri: string;
  issuedAt: Date;
  expiresAt: Date;
  /** Seconds a holder may keep it before fetching it again (`ttl`), when the list says. */
  ttlSeconds: number | undefined;
  keyId: string;
  statusOf(idx: number): 0 | 1;
}
