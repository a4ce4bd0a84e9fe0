import { CredentialVerificationError } from './credential-model';
import { jsonObjectOf, isRecord, isSeconds } from './jws-parsing';

// A credential's claims: the license fields checked and typed, and its status reference.

interface LicensePayload {
  iss: string;
  sub: string;
  nbf: number;
  exp: number;
  boxId: string;
  claimId: string;
  identityName: string;
  platformId: string;
  tier: string;
  allowedUses: string[];
  status: { idx: number; uri: string };
}

export function licenseClaimsOf(payload: Record<string, unknown>): LicensePayload {
  const missing: string[] = ['iss', 'sub', 'boxId', 'claimId', 'identityName', 'platformId', 'tier'].filter(
    (name) => typeof payload[name] !== 'string',
  );
  for (const name of ['iat', 'nbf', 'exp']) if (!isSeconds(payload[name])) missing.push(name);
  const uses = payload.allowedUses;
  if (!Array.isArray(uses) || !uses.every((use) => typeof use === 'string')) missing.push('allowedUses');
  const status = statusReferenceOf(payload.status);
  if (status === undefined) missing.push('status');
  if (missing.length > 0 || status === undefined) {
    throw new CredentialVerificationError('malformed', `claims missing or mistyped: ${missing.join(', ')}`);
  }
  if (!(payload.sub as string).startsWith('lic_')) {
    throw new CredentialVerificationError('malformed', 'sub is not a license id (lic_…)');
  }
  return { ...(payload as unknown as LicensePayload), status };
}

/**
 * `status: {status_list: {idx, uri}}` (IETF) or `status: {idx, uri}` (docs/spec/contracts.md §16); when both
 * are there they must agree.
 */
function statusReferenceOf(status: unknown): { idx: number; uri: string } | undefined {
  if (!isRecord(status)) return undefined;
  const ietf = isRecord(status.status_list) ? referenceOf(status.status_list) : undefined;
  const flat = referenceOf(status);
  if (ietf !== undefined && flat !== undefined && (ietf.idx !== flat.idx || ietf.uri !== flat.uri))
    return undefined;
  return ietf ?? flat;
}

function referenceOf(value: Record<string, unknown>): { idx: number; uri: string } | undefined {
  const { idx, uri } = value;
  return Number.isInteger(idx) && (idx as number) >= 0 && typeof uri === 'string'
    ? { idx: idx as number, uri }
    : undefined;
}

export function unverifiedTtlSeconds(jwt: string): number | undefined {
  const ttl = jsonObjectOf(jwt.split('.')[1] ?? '')?.ttl;
  return isSeconds(ttl) ? ttl : undefined;
}
